import type { Config } from '../../config/load-config.js';
import { UsageError } from '../../core/errors.js';
import type { ConnectionOutcome } from '../connection.js';
import { tablesOf } from '../endpoint-declaration.js';
import type { TableSpec } from '../resource-spec.js';
import { ENGAGEMENT_ENDPOINTS } from './endpoints.js';

export { ENGAGEMENT_ENDPOINTS, USER_SCOPED } from './endpoints.js';
export type { EngagementSettings } from './hooks.js';

/** The engagement connection from the configuration, or why the source is skipped. */
export function engagementConnection(config: Config): ConnectionOutcome {
  const url = config['engagement.url'];
  if (!url) return { skipped: 'FANLAKE_ENGAGEMENT_URL is not set' };
  const key = config['engagement.apiKey'];
  const orgId = config['engagement.orgId'];
  if (!key) throw new UsageError('FANLAKE_ENGAGEMENT_URL is set but FANLAKE_ENGAGEMENT_API_KEY is not: set the API key in the environment or .env');
  if (!orgId) throw new UsageError('FANLAKE_ENGAGEMENT_URL is set but FANLAKE_ENGAGEMENT_ORG_ID is not: set the numeric organization id');
  return {
    connection: {
      source: 'engagement',
      baseUrl: `${url.replace(/\/+$/, '')}/v2/${orgId}`,
      authorization: `Basic ${key}`,
      credentialHint: 'check FANLAKE_ENGAGEMENT_API_KEY and FANLAKE_ENGAGEMENT_ORG_ID',
    },
  };
}

/** Every raw table of the engagement source (contract names without `engagement_`), in declaration order. */
export const ENGAGEMENT_TABLES: readonly TableSpec[] = ENGAGEMENT_ENDPOINTS.flatMap((endpoint) => tablesOf(endpoint));
