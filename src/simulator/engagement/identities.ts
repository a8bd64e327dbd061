import type { Router } from '../http/router.js';
import { failure, json } from '../http/router.js';
import { SIMULATOR_API_APP } from '../population/engagement/profiles.js';
import { param, v2 } from './guard.js';
import type { EngagementApiState } from './state.js';

/**
 * Identity reads (apiApp module). The simulator's API key is ApiApp 1's credential: a
 * read by externalId finds only ApiApp 1's identities; a read by id finds any identity
 * (the document scopes only create, update, delete and the externalId read).
 */
export function identityRoutes(router: Router, state: EngagementApiState): void {
  const { people } = state.data;

  router.get('/v2/:orgId/identities', v2(state, 'apiApp', ({ query }) => {
    const externalId = param(query, 'externalId');
    if (externalId === null || externalId.trim() === '') return failure(400, 'Provided ExternalId is empty');
    const index = people.indexOfExternalId(SIMULATOR_API_APP, externalId);
    if (index < 0) return failure(404, `Could not find Identity: with externalId ${externalId}`);
    return json(200, people.identity(index));
  }));

  router.get('/v2/:orgId/identities/:identityId', v2(state, 'apiApp', ({ params: { identityId } }) => {
    const index = people.indexOfId(identityId!);
    const identity = index < 0 ? undefined : people.identity(index);
    if (!identity) return failure(404, `Could not find Identity: with id ${identityId}`);
    return json(200, identity);
  }));
}
