import { beforeAll, describe, expect, it } from 'vitest';
import { born, profile, type RawRecords, user } from './identity-fixture.js';
import { BACKDROP, explainOf, fansOf, placeWithClubModel, storedPairOf } from './identity-rule-fixture.js';

/**
 * A last name replaced (a marriage, or a system that wrote it anew) at one street line, and one
 * street line whose postal code and town both carry a slip: Febrl 4's second file does both.
 * Built through the real models with the club model of identity-model-fixture.ts.
 */

const RAW: RawRecords = {
  ticketing_users: [
    ...BACKDROP,
    // one person, the last name replaced, the first name with a slip (Jade, Jadue), one birth date, street line and town
    user(461, { name_first: 'Jade', name_last: 'Worsley', email: 'jade.w@example.org', phone: '', birthday: '1949-10-01', address: '28 Waller Crescent', zip_code: '7190', city: 'Cabramatta' }),
    // the same at another street line of one town: two people as far as the cheap tests can tell
    user(462, { name_first: 'Tara', name_last: 'Bishop', email: 'tara.b@example.org', phone: '', birthday: '1977-10-30', address: '7 Namatjira Drive', zip_code: '0821', city: 'Rye' }),
    // one first name and birth date, a house of one street a digit away in another town: two people who met by chance
    user(463, { name_first: 'Knut', name_last: 'Hansen', email: 'knut.h@example.org', phone: '', birthday: '1972-08-06', address: 'Solbakken 72', zip_code: '5003', city: 'Bergen' }),
    // one person, one street line, its postal code and town each with a slip (5161 and 5116, Keilor East and Keilorzeast)
    user(471, { name_first: 'Alicia', name_last: 'Hyland', email: 'alicia.h@example.org', phone: '', birthday: '1980-04-02', address: '112 Fullagar Crescent', zip_code: '5161', city: 'Keilor East' }),
    // one street line in another town altogether: another address
    user(481, { name_first: 'Brita', name_last: 'Vik', email: 'brita.v@example.org', phone: '', birthday: '1985-09-09', address: '8 Storgata', zip_code: '7010', city: 'Trondheim' }),
  ],
  engagement_customer_profiles: [
    profile(4061, { firstName: 'Jadue', lastName: 'Czoloszyski', email: 'jczol@example.org', dateOfBirth: born('1949-10-01'), street: '28 Waller Crescent', postalCode: '7190', city: 'Cabramatta' }),
    profile(4062, { firstName: 'Taray', lastName: 'Grooby', email: 'tgrooby@example.org', dateOfBirth: born('1977-10-30'), street: '15 Ocean Street', postalCode: '0821', city: 'Rye' }),
    profile(4063, { firstName: 'Knut', lastName: 'Jorgensen', email: 'knut.j@example.org', dateOfBirth: born('1972-08-06'), street: 'Solbakken 79', postalCode: '3003', city: 'Drammen' }),
    profile(4071, { firstName: 'Alicia', lastName: 'Hyland', email: 'hyland@example.org', dateOfBirth: born('1980-04-02'), street: '112 Fullagar Crescent', postalCode: '5116', city: 'Keilorzeast' }),
    profile(4081, { firstName: 'Brita', lastName: 'Vik', email: 'bvik@example.org', dateOfBirth: born('1985-09-09'), street: '8 Storgata', postalCode: '5003', city: 'Bergen' }),
  ],
};

const REPLACED: [string, string] = ['ticketing_user:461', 'engagement_customer_profile:4061'];
const NEIGHBOURS: [string, string] = ['ticketing_user:462', 'engagement_customer_profile:4062'];
const CHANCE: [string, string] = ['ticketing_user:463', 'engagement_customer_profile:4063'];
const SLIPPED_PLACE: [string, string] = ['ticketing_user:471', 'engagement_customer_profile:4071'];
const OTHER_TOWN: [string, string] = ['ticketing_user:481', 'engagement_customer_profile:4081'];

const addressLevel = async (dataDir: string, pair: readonly [string, string]) =>
  (await explainOf(dataDir, pair)).comparisons.find((compared) => compared.comparison === 'address')?.level;

describe('a last name replaced, and a postal code and town with slips, at one street line', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await placeWithClubModel(RAW, {});
  }, 120_000);

  it('compares one first name with a slip, one birth date, one street line and town, whatever the last names (the weights decide the link)', async () => {
    const explained = await explainOf(dataDir, REPLACED);
    expect(explained.worthComparing).toBe(true);
    expect(explained.comparisons.map((compared) => [compared.comparison, compared.level])).toEqual(
      expect.arrayContaining([['first_name', 'one_edit'], ['last_name', 'different'], ['birth_date', 'exact'], ['address', 'same']]),
    );
  });

  it('does not compare them at another street line of the town, nor one first name and birth date a house away in another town', async () => {
    for (const pair of [NEIGHBOURS, CHANCE]) {
      expect((await explainOf(dataDir, pair)).worthComparing).toBe(false);
      expect(new Set(await fansOf(dataDir, pair)).size).toBe(2);
    }
  });

  it('takes one street line whose postal code and town both carry a slip for a similar street, not a different address, and the person one fan', async () => {
    expect(await addressLevel(dataDir, SLIPPED_PLACE)).toBe('similar_street');
    expect(await storedPairOf(dataDir, SLIPPED_PLACE)).toMatchObject({ is_link: true });
    expect(new Set(await fansOf(dataDir, SLIPPED_PLACE)).size).toBe(1);
  });

  it('keeps one street line in another town a different address', async () => {
    expect(await addressLevel(dataDir, OTHER_TOWN)).toBe('different');
  });
});
