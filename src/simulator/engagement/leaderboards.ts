import type { Router } from '../http/router.js';
import { failure, json } from '../http/router.js';
import { DEMOGRAPHIC_VALUES, type LeaderboardSeason, mostCurrentSeason } from '../population/engagement/leaderboards.js';
import { idParam, intParam, param, userApi, v2 } from './guard.js';
import type { EngagementApiState } from './state.js';

/**
 * Leaderboards (application/json). Switching the leaderboards module off leaves the
 * organization without a configured season, which is the prerequisite the document
 * names, so the endpoints answer as it documents for that case.
 */
export function leaderboardRoutes(router: Router, state: EngagementApiState): void {
  const { leaderboards } = state.data;
  const seasons = (): readonly LeaderboardSeason[] => (state.disabledModules.has('leaderboards') ? [] : leaderboards.seasons);
  const current = () => mostCurrentSeason(seasons(), state.clock.now());
  const notFound = (seasonId: number, intervalId: number | undefined, demographicValue: string | null) =>
    failure(404, `Could not find Leaderboard for given parameters: seasonId, intervalId, demographicValue (${seasonId}, ${intervalId ?? 'null'}, ${demographicValue ?? 'null'})`);

  router.get('/v2/:orgId/mypage/leaderboards/leaderboardseasons', v2(state, undefined, () => {
    const all = seasons();
    if (all.length === 0) return failure(404, 'LeaderboardSeason not found');
    return json(200, all.map((s) => leaderboards.seasonRecord(s)));
  }));

  router.get('/v2/:orgId/mypage/leaderboards/toppositions', v2(state, undefined, ({ query }) => {
    const positionCount = intParam(query, 'positionCount', 10, 1, 100);
    const seasonId = idParam(query, 'leaderboardseasonid');
    const intervalId = idParam(query, 'intervalId');
    const demographicValue = param(query, 'demographicValue') || null;
    if (seasons().length === 0 || (seasonId === undefined && !current())) {
      return failure(404, `No suitable LeaderboardSeason could be found for tenant ${state.data.tenantId}`);
    }
    const season = seasonId === undefined ? current()! : seasons().find((s) => s.id === seasonId);
    if (!season) return notFound(seasonId!, intervalId, demographicValue);
    if (demographicValue !== null && !season.demographicFieldId) return failure(400, `Season ${season.id} has no DemographicField configured`);
    if (demographicValue !== null && !DEMOGRAPHIC_VALUES.includes(demographicValue)) return notFound(season.id, intervalId, demographicValue);
    if (intervalId !== undefined && !leaderboards.interval(season, intervalId)) return notFound(season.id, intervalId, demographicValue);
    return json(200, leaderboards.top({ seasonId: season.id, intervalId: intervalId ?? null, demographicValue }, positionCount));
  }));

  router.get('/userapi/v1/:orgId/mypage/leaderboards/leaderboardsummary', userApi(state, (_ctx, profile) => {
    const season = current();
    return json(200, season ? leaderboards.summary(profile, season) : []);
  }));
}
