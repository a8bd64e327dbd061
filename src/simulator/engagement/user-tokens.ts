import { hash32, tagOf } from '../random.js';

/** The third-party provider the simulator's cmtoken accepts, and its token form `demo-<customerProfileId>`. */
export const DEMO_PROVIDER = 'demo';

/**
 * User tokens (`ut.<customerProfileId>.<signature>`): what cmtoken returns and the
 * userapi endpoints accept as `Bearer`. Signed with the seed, so they are the same for
 * every run of a seed and cannot be made up for another profile by changing the id.
 */
export class UserTokens {
  constructor(private readonly seed: number) {}

  issue(customerProfileId: number): string {
    return `ut.${customerProfileId}.${this.signature(customerProfileId)}`;
  }

  /** The customer profile id a token was issued for, or undefined when it is not one of ours. */
  customerProfileIdOf(token: string): number | undefined {
    const parts = /^ut\.(\d+)\.([0-9a-f]{8})$/.exec(token);
    if (!parts) return undefined;
    const id = Number(parts[1]);
    return parts[2] === this.signature(id) ? id : undefined;
  }

  /** The customer profile id behind a third-party token of `provider`, or undefined. */
  fromThirdParty(provider: string, token: string): number | undefined {
    const parts = provider === DEMO_PROVIDER ? /^demo-(\d+)$/.exec(token) : null;
    return parts ? Number(parts[1]) : undefined;
  }

  private signature(id: number): string {
    return hash32(this.seed, tagOf('user-token'), id).toString(16).padStart(8, '0');
  }
}
