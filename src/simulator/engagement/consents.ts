import type { Router } from '../http/router.js';
import { failure } from '../http/router.js';
import { boolParam, jsonApi, pageOf, paging, v2 } from './guard.js';
import type { EngagementApiState } from './state.js';

/**
 * The consents of the customer profile an identity (any linked person) belongs to
 * (interact module), with the texts and sources they link to under `linked`.
 */
export function consentRoutes(router: Router, state: EngagementApiState): void {
  const { data } = state;
  router.get('/v2/:orgId/customerinsights/customerprofiles/:identityId/consents', v2(state, 'interact', ({ params, query }) => {
    const person = data.people.indexOfId(params.identityId!);
    if (person < 0) return failure(404, `Could not find Identity: ${params.identityId}`);
    const includeRevoked = boolParam(query, 'includeRevoked', true);
    const page = paging(query);
    const profile = data.profiles.profileOfPeople(person);
    const all: Record<string, unknown>[] = [];
    for (let c = data.consents.start[profile]!; c < data.consents.start[profile + 1]!; c++) {
      const consent = data.consents.record(c, profile);
      if (includeRevoked || !consent.isRevoked) all.push(consent);
    }
    const consents = pageOf(all, page);
    const texts = new Map<string, Record<string, unknown>>();
    const sources = new Map<string, Record<string, unknown>>();
    for (const consent of consents) {
      const { consentText, consentSource } = consent.links as { consentText: string; consentSource: string };
      texts.set(consentText, data.consents.textRecord(data.consents.textIndexOfId(consentText)));
      sources.set(consentSource, data.consents.sourceRecord(data.consents.sourceIndexOfId(consentSource)));
    }
    return jsonApi({ linked: { consentTexts: [...texts.values()], consentSources: [...sources.values()] }, consents });
  }));
}
