import { Rng } from '../../random.js';
import { FEMALE_FIRST, LAST, MAIL_DOMAINS, MALE_FIRST, asciiName } from '../names.js';
import { typedEmail } from '../persons.js';
import { type Population, SCALE_1 } from '../population.js';
import type { CampaignApps } from './campaign-apps.js';
import { segmentOf } from '../../store/sorted.js';

export const PARTICIPANT_ID_BASE = 9_000_000;

/**
 * Campaign app participants, ordered by app so a `campaignAppId` filter is the range
 * `start[app] .. start[app+1]`. Most are people with a profile or a ticketing account
 * (e-mail as typed into the form); some are nobody else knows.
 */
export class Participants {
  readonly start: Uint32Array;

  constructor(
    private readonly population: Population,
    private readonly apps: CampaignApps,
    private readonly orgId: string,
  ) {
    const total = Math.max(20, Math.round(SCALE_1.participants * population.scale));
    const weights = Array.from({ length: apps.count }, (_, a) =>
      apps.hasStarted(a) ? 0.2 + Rng.for(population.seed, 'eng-app-popularity', a).next() : 0,
    );
    const sum = weights.reduce((s, w) => s + w, 0);
    this.start = new Uint32Array(apps.count + 1);
    // Cumulative rounding: counts add up to `total` exactly, in app order.
    let cumulative = 0;
    for (let a = 0; a < apps.count; a++) {
      cumulative += weights[a]!;
      this.start[a + 1] = sum > 0 ? Math.round((total * cumulative) / sum) : 0;
    }
  }

  get count(): number {
    return this.start[this.apps.count]!;
  }

  indexOfId(id: string): number {
    if (!/^\d+$/.test(id)) return -1;
    const index = Number(id) - PARTICIPANT_ID_BASE;
    return index >= 0 && index < this.count ? index : -1;
  }

  appOf(index: number): number {
    return segmentOf(this.start, index);
  }

  /** The true person behind a participant, or -1 for somebody unknown to both systems. */
  personOf(index: number): number {
    const rng = Rng.for(this.population.seed, 'eng-participant-person', index);
    const roll = rng.next();
    if (roll < 0.65) return this.population.profilePerson[rng.int(0, this.population.profilePerson.length - 1)]!;
    if (roll < 0.9) return this.population.userPerson[rng.int(0, this.population.userPerson.length - 1)]!;
    return -1;
  }

  record(index: number): Record<string, unknown> {
    const rng = Rng.for(this.population.seed, 'eng-participant', index);
    const personIndex = this.personOf(index);
    let firstName: string;
    let lastName: string;
    let emailAddress: string;
    if (personIndex >= 0) {
      const person = this.population.persons.get(personIndex);
      firstName = person.firstName;
      lastName = person.lastName;
      const roll = rng.next();
      emailAddress = roll < 0.85 ? typedEmail(person.email, rng) : roll < 0.95 ? person.workEmail : '';
    } else {
      firstName = rng.pick(rng.chance(0.5) ? MALE_FIRST : FEMALE_FIRST);
      lastName = rng.pick(LAST);
      emailAddress = `${asciiName(firstName)}.${asciiName(lastName)}${rng.int(100, 999)}@${rng.pick(MAIL_DOMAINS)}`;
    }
    if (rng.chance(0.05)) {
      firstName = firstName.toLowerCase();
      lastName = lastName.toLowerCase();
    }
    const id = PARTICIPANT_ID_BASE + index;
    return {
      id: String(id),
      href: `/v2/${this.orgId}/campaign/participants/${id}`,
      type: 'campaignAppParticipants',
      firstName,
      lastName,
      emailAddress,
      campaignAppId: this.apps.idOf(this.appOf(index)),
    };
  }
}
