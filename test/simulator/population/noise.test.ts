import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOISE_RATES, type NoiseKind, writtenPerson } from '../../../src/simulator/population/noise.js';
import { FIRST_NAME_SHORT_FORMS } from '../../../src/simulator/population/names.js';
import { Population } from '../../../src/simulator/population/population.js';
import type { Simulator } from '../../../src/simulator/simulator.js';
import { startTestSimulator } from '../../helpers/simulator.js';

/** The simulator's real-world noise: at its documented rates, deterministic, and recorded in the truth. */
describe('writtenPerson', () => {
  const population = new Population(5, 1, true);
  const persons = Array.from({ length: 20_000 }, (_, index) => population.persons.get(index));
  const written = persons.map((person) => writtenPerson(5, 'ticketing_user', person));

  it('is a pure function of seed, system and person', () => {
    expect(writtenPerson(5, 'ticketing_user', persons[7]!)).toEqual(written[7]);
    const otherSystem = persons.map((person) => writtenPerson(5, 'engagement_customer_profile', person).noise.join());
    expect(otherSystem).not.toEqual(written.map((entry) => entry.noise.join()));
  });

  it.each(['middleName', 'typo', 'upperCase', 'swapped', 'emailChanged', 'phoneChanged'] as NoiseKind[])('draws %s at its documented rate', (kind) => {
    const share = written.filter((entry) => entry.noise.includes(kind)).length / written.length;
    expect(share).toBeGreaterThan(NOISE_RATES[kind] * 0.8);
    expect(share).toBeLessThan(NOISE_RATES[kind] * 1.2);
  });

  it('changes what each kind says, and nothing without noise', () => {
    for (const [at, { person, noise }] of written.entries()) {
      const original = persons[at]!;
      if (noise.length === 0) expect(person).toEqual(original);
      if (noise.includes('upperCase') && !noise.includes('swapped')) expect(person.firstName).toBe(person.firstName.toUpperCase());
      if (noise.includes('swapped') && !noise.some((kind) => kind !== 'swapped')) {
        expect([person.firstName, person.lastName]).toEqual([original.lastName, original.firstName]);
      }
      if (noise.includes('emailChanged')) expect(person.email).not.toBe(original.email);
      if (noise.includes('phoneChanged')) expect(person.phone.countryCode).toBe(original.phone.countryCode);
      if (noise.includes('transliterated') && noise.length === 1) expect(`${person.firstName} ${person.lastName}`).toMatch(/oe|aa|ae|Oe|Aa|Ae/);
    }
  });

  it('writes a first name that has a short form as one at its documented rate, and only such a name', () => {
    const withForms = written.filter((_, at) => FIRST_NAME_SHORT_FORMS[persons[at]!.firstName]);
    const share = withForms.filter((entry) => entry.noise.includes('shortForm')).length / withForms.length;
    expect(share).toBeGreaterThan(NOISE_RATES.shortForm * 0.8);
    expect(share).toBeLessThan(NOISE_RATES.shortForm * 1.2);
    for (const [at, entry] of written.entries()) {
      // in the given name's field (the last name's when swapped), in the record's case
      const given = (entry.noise.includes('swapped') ? entry.person.lastName : entry.person.firstName).toLowerCase();
      if (entry.noise.includes('shortForm')) expect(FIRST_NAME_SHORT_FORMS[persons[at]!.firstName]!.map((form) => form.toLowerCase())).toContain(given);
      if (entry.noise.includes('firstInitial')) expect(given).toBe(persons[at]!.firstName.slice(0, 1).toLowerCase());
    }
  });

  it('makes some household partners twins: the head\'s surname, address, mailbox and birth date, another first name', () => {
    const twins = persons.filter((person) => persons.some((other) => other.index < person.index && other.email === person.email && other.birthday === person.birthday));
    expect(twins.length).toBeGreaterThan(20);
    for (const twin of twins) {
      const head = persons.find((other) => other.email === twin.email && other.index !== twin.index)!;
      expect([head.lastName, head.street, head.birthday]).toEqual([twin.lastName, twin.street, twin.birthday]);
      expect(head.firstName).not.toBe(twin.firstName);
    }
  });

  it('leaves persons as they are without noise', () => {
    const quiet = new Population(5, 1);
    expect(quiet.written('ticketing_user', 3)).toEqual({ person: quiet.persons.get(3), noise: [] });
  });

  it('skews last names so namesakes pile up', () => {
    const quiet = new Population(5, 1);
    const top = (names: string[]) => {
      const counts = new Map<string, number>();
      for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
      return Math.max(...counts.values());
    };
    const noisy = persons.map((person) => person.lastName);
    const plain = Array.from({ length: 20_000 }, (_, index) => quiet.persons.get(index).lastName);
    expect(top(noisy)).toBeGreaterThan(2 * top(plain));
  });
});

describe('the simulator with noise', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startTestSimulator({ scale: 0.05, seed: 3, noise: true });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('records each record\'s noise in the truth, and serves the record written that way', async () => {
    const truth = [...sim.truth()];
    const noisyUsers = truth.filter((link) => link.system === 'ticketing_user' && link.noise?.includes('upperCase') && !link.noise.includes('swapped'));
    expect(noisyUsers.length).toBeGreaterThan(0);
    const response = await fetch(`${sim.url}/__admin/truth`);
    expect(await response.text()).toContain('"noise":[');
    const { users } = sim.ticketing;
    const served = new Map<string, Record<string, unknown>>();
    for (const index of users.timeline.indices()) {
      const record = users.record(index) as Record<string, unknown>;
      served.set(users.keyOf(record as never), record);
    }
    for (const link of noisyUsers) {
      const record = served.get(link.recordId)!;
      if (record.name_first !== null) expect(record.name_first).toBe(String(record.name_first).toUpperCase());
    }
  });
});
