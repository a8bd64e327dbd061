import { ENGAGEMENT_ENDPOINTS, type EngagementSettings, USER_SCOPED } from '../../sources/engagement/index.js';
import { type SnapshotRun, extractSnapshot } from '../engine/snapshot-engine.js';
import { type ResourceResult, skippedResult } from '../resource-result.js';

export type EngagementRun = Omit<SnapshotRun<EngagementSettings>, 'accept'>;

/**
 * Takes a full snapshot of the engagement API: every declared endpoint through the one
 * engine (see `ENGAGEMENT_ENDPOINTS`), then names the user-scoped endpoints that
 * organization-level extraction cannot read.
 */
export async function extractEngagement(run: EngagementRun): Promise<ResourceResult[]> {
  const results = await extractSnapshot({ ...run, accept: 'application/vnd.api+json, application/json' }, ENGAGEMENT_ENDPOINTS);
  if (!run.only) for (const [name, why] of Object.entries(USER_SCOPED)) results.push(skippedResult('engagement', name, why));
  return results;
}
