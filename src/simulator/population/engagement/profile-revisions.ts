import { Rng } from '../../random.js';
import { iso } from '../time.js';

/** The latest change of one customer profile while the simulator runs. */
export interface ProfileRevision {
  /** 1 for the first change, counting up. */
  readonly revision: number;
  readonly atMs: number;
}

/**
 * Changes made to customer profiles while the simulator runs (the admin surface's "change
 * these profiles", which the platform then pushes to its subscriptions). Records are
 * generated from their index, so a change is a revision number that the generators of a
 * profile, its people and its consents apply on top of what they generate: a new address
 * and picture on the profile (names, e-mail and phone stay: loyalty and leaderboards find
 * profiles by them), a new picture on its first person, one more consent
 * revoked. Few profiles change, so a map holds them.
 */
export class ProfileRevisions {
  /** Profile index → when each of its revisions was made, oldest first. */
  private readonly byProfile = new Map<number, number[]>();

  constructor(private readonly seed: number) {}

  /** Gives a profile its next revision, made at `atMs`. */
  revise(profileIndex: number, atMs: number): ProfileRevision {
    const times = this.byProfile.get(profileIndex) ?? [];
    times.push(atMs);
    this.byProfile.set(profileIndex, times);
    return { revision: times.length, atMs };
  }

  of(profileIndex: number): ProfileRevision | undefined {
    const times = this.byProfile.get(profileIndex);
    return times ? { revision: times.length, atMs: times[times.length - 1]! } : undefined;
  }

  /** A profile record with its latest revision's fields. */
  profile(record: Record<string, unknown>, profileIndex: number): Record<string, unknown> {
    const revised = this.of(profileIndex);
    if (!revised) return record;
    const rng = Rng.for(this.seed, 'eng-profile-revision', profileIndex, revised.revision);
    const street = `${rng.pick(['Storgata', 'Kirkeveien', 'Parkveien', 'Skolegata', 'Fjordveien'])} ${rng.int(1, 120)}`;
    return { ...record, street, postalCode: String(rng.int(1000, 9990)).padStart(4, '0'), imageUrl: `https://media.engage.example/profiles/${String(record.id)}/r${revised.revision}.jpg` };
  }

  /** A person record: the first person of a revised profile shows a new picture. */
  person(record: Record<string, unknown>, profileIndex: number, isFirstPerson: boolean): Record<string, unknown> {
    const revised = this.of(profileIndex);
    if (!revised || !isFirstPerson) return record;
    return { ...record, profileImageUrl: `https://media.engage.example/people/${String(record.id)}/r${revised.revision}.jpg` };
  }

  /**
   * A consent record: revision n revokes the profile's n-th consent (counting round), when
   * it is not revoked yet, at the time of the change.
   */
  consent(record: Record<string, unknown>, profileIndex: number, positionInProfile: number, consentsOfProfile: number): Record<string, unknown> {
    const times = this.byProfile.get(profileIndex);
    if (!times || record.isRevoked === true || consentsOfProfile === 0) return record;
    const revoking = times.findIndex((_, r) => r % consentsOfProfile === positionInProfile);
    return revoking < 0 ? record : { ...record, isRevoked: true, revokedDateTime: iso(times[revoking]!) };
  }
}
