import type { Config } from '../../config/load-config.js';
import { UsageError } from '../../core/errors.js';
import type { ConnectionOutcome } from '../connection.js';

export { TICKETING_RESOURCES, type TicketingResourceName } from './resources.js';

/** The ticketing connection from the configuration, or why the source is skipped. */
export function ticketingConnection(config: Config): ConnectionOutcome {
  const url = config['ticketing.url'];
  if (!url) return { skipped: 'FANLAKE_TICKETING_URL is not set' };
  const token = config['ticketing.token'];
  if (!token) throw new UsageError('FANLAKE_TICKETING_URL is set but FANLAKE_TICKETING_TOKEN is not: set the access token in the environment or .env');
  return {
    connection: { source: 'ticketing', baseUrl: url, authorization: `Basic ${token}`, credentialHint: 'check FANLAKE_TICKETING_TOKEN' },
  };
}
