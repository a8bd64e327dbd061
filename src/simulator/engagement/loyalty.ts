import type { Router } from '../http/router.js';
import { failure, json } from '../http/router.js';
import { param, v2 } from './guard.js';
import type { EngagementApiState } from './state.js';

/** A phone credential: E.164 in RFC 3966 form, visual separators allowed (tel:+47-912-34-567). */
const RFC3966 = /^tel:\+([0-9][0-9\-.()]*)$/;

/** The loyalty summary of the individual with an e-mail or phone credential (loyalty module). */
export function loyaltyRoutes(router: Router, state: EngagementApiState): void {
  const { loyalty } = state.data;
  router.get('/v2/:orgId/mypage/loyaltysummary', v2(state, 'loyalty', ({ query }) => {
    const type = param(query, 'type')?.toLowerCase();
    const value = param(query, 'value');
    if (type !== 'email' && type !== 'phone') return failure(400, 'type is required and must be email or phone');
    if (!value) return failure(400, 'value is required');
    let profile: number;
    if (type === 'email') {
      profile = loyalty.findByEmail(value);
    } else {
      const phone = RFC3966.exec(value.trim());
      if (!phone) return failure(400, 'A phone value must be an E.164 number in RFC 3966 form, for example tel:+47-91234567');
      profile = loyalty.findByPhone(phone[1]!.replace(/[^0-9]/g, ''));
    }
    if (profile < 0) return failure(404, `Could not find an individual with ${type} ${value}`);
    return json(200, loyalty.summary(profile));
  }));
}
