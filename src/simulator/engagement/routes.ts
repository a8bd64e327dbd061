import { Router } from '../http/router.js';
import { activityRoutes } from './activities.js';
import { campaignAppRoutes } from './campaign-apps.js';
import { consentRoutes } from './consents.js';
import { contextRoutes } from './contexts.js';
import { customerProfileRoutes } from './customer-profiles.js';
import { fileRoutes } from './files.js';
import { identityRoutes } from './identities.js';
import { leaderboardRoutes } from './leaderboards.js';
import { loyaltyRoutes } from './loyalty.js';
import { participantRoutes } from './participants.js';
import type { EngagementApiState } from './state.js';
import { subscriptionRoutes } from './subscriptions.js';
import { tokenExchangeRoutes } from './user-token-exchange.js';

export type { EngagementApiState } from './state.js';

/**
 * The engagement API: `/v2/{orgId}/...` with Basic API key and `/userapi/v1/{orgId}/...`
 * with a Bearer user token. Of the write side, push subscriptions are served (create,
 * validate, update, delete); other write methods are not (the router answers 405).
 */
export function engagementRouter(state: EngagementApiState): Router {
  const router = new Router();
  customerProfileRoutes(router, state);
  consentRoutes(router, state);
  tokenExchangeRoutes(router, state);
  campaignAppRoutes(router, state);
  participantRoutes(router, state);
  subscriptionRoutes(router, state);
  contextRoutes(router, state);
  identityRoutes(router, state);
  fileRoutes(router, state);
  leaderboardRoutes(router, state);
  loyaltyRoutes(router, state);
  activityRoutes(router, state);
  return router;
}
