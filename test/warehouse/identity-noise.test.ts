import { beforeAll, describe, expect, it } from 'vitest';
import { queryWarehouse } from '../helpers/warehouse.js';
import { born, itPlacesTraps, placeTrapRecords, profile, type TrapPlacement, user } from './identity-fixture.js';

/**
 * Hand-made trap records for each kind of real-world noise the simulator learned (docs/decisions.md
 * "Simulator noise"), built through the real models with a club's trained identity model
 * (identity-model-fixture.ts): a ticketing user and a customer profile of one person written
 * differently (a typo in each field, swapped names), and households, twins and namesakes that must
 * stay apart.
 */

// Common names in either field, so word counts tell which field a name usually sits in.
const backdrop = [
  ['Kari', 'Lunde'], ['Ola', 'Lunde'], ['Per', 'Lunde'], ['Tone', 'Haugen'], ['Thea', 'Haugen'], ['Thea', 'Berge'],
].map(([first, last], at) => user(900 + at, { name_first: first, name_last: last, email: `backdrop${at}@example.org`, phone: '' }));

const RAW = {
  ticketing_users: [
    ...backdrop,
    // ø/å written oe/aa, and in capitals, in the other system: one e-mail, first names agree once transliterated
    user(201, { name_first: 'Bjørn', name_last: 'Sørensen', email: 'bjorn.s@gmail.com', phone: '' }),
    // diacritics dropped and a middle name only here: name and birth date agree
    user(202, { name_first: 'Åse Marie', name_last: 'Nygard', email: 'aase@online.no', phone: '', birthday: '1971-03-04' }),
    // a doubled consonant written single, and an e-mail changed since sign-up
    user(203, { name_first: 'Ida', name_last: 'Pettersen', email: 'ida.p@hotmail.com', phone: '', birthday: '1980-02-02' }),
    // a one-letter typo in the last name: similar_last_name
    user(204, { name_first: 'Magnus', name_last: 'Johansen', email: 'magnus.j@gmail.com', phone: '', birthday: '1982-04-04' }),
    // first and last name swapped in the other system, one e-mail
    user(205, { name_first: 'Thea', name_last: 'Lunde', email: 'thea.lunde@gmail.com', phone: '' }),
    // a household: one phone, two first names, two fans
    user(206, { name_first: 'Geir', name_last: 'Moe', email: 'geir.moe@gmail.com', phone: '95555555' }),
    // namesakes one letter apart with the same birth date but different phones: two fans
    user(207, { name_first: 'Emil', name_last: 'Strand', email: 'emil.s@gmail.com', phone: '96666661', birthday: '1999-09-09' }),
    // all lower case in the other system, and a phone changed since: one e-mail and birth date
    user(208, { name_first: 'Sofie', name_last: 'Lien', email: 'sofie.lien@gmail.com', phone: '91111208', birthday: '1990-08-08' }),
    // a typo in the first name: one e-mail, first names one slip apart
    user(209, { name_first: 'Kristian', name_last: 'Dahl', email: 'kdahl@online.no', phone: '' }),
    // a typo in the first name, found through birth date and last name
    user(211, { name_first: 'Sebastian', name_last: 'Holmvik', email: 'seb.h@gmail.com', phone: '', birthday: '1977-07-17' }),
    // a household sharing e-mail and phone, two first names, and a record of the mailbox without a name: three fans
    user(212, { name_first: 'Ola', name_last: 'Vik', email: 'vik.family@online.no', phone: '94444212' }),
    user(213, { name_first: null, name_last: null, email: 'vik.family@online.no', phone: '' }),
    // namesakes born the same year: two fans
    user(214, { name_first: 'Per', name_last: 'Hansen', email: 'per.hansen.1@gmail.com', phone: '', birthday: '1970-01-01' }),
    // one e-mail and one name, the phone changed since and the birth date known on one side only:
    // one fan, though father and son of one name sharing a mailbox would look the same (review)
    user(215, { name_first: 'Geir', name_last: 'Solberg', email: 'gsolberg@online.no', phone: '95555215', birthday: '1960-04-27' }),
    // father and son of one name sharing a mailbox, with their own phones and birth dates: two fans
    user(216, { name_first: 'Arild', name_last: 'Dahle', email: 'dahle@online.no', phone: '95555216', birthday: '1955-05-05' }),
    // father and son of one name sharing a mailbox, and a profile of it with the last name only
    // (2017): whose it is cannot be told, so three fans, not one that chains father and son
    user(217, { name_first: 'Arne', name_last: 'Lie', email: 'lie.family@online.no', phone: '', birthday: '1950-05-05' }),
    user(218, { name_first: 'Arne', name_last: 'Lie', email: 'lie.family@online.no', phone: '', birthday: '1980-08-08' }),
    // twins sharing an e-mail, a phone, a birth date and an address: two first names, two fans
    user(219, { name_first: 'Ida', name_last: 'Berge', email: 'berge.twins@online.no', phone: '95555219', birthday: '2001-02-03', address: 'Bakken 4', zip_code: '7030' }),
    // a slip in the birth date (one digit), in the phone (one digit) and in the street line
    user(220, { name_first: 'Tobias', name_last: 'Ruud', email: 'tobias.ruud@gmail.com', phone: '95555220', birthday: '1993-06-14', address: 'Solbakken 17', zip_code: '3050' }),
    // first and last name swapped and a slip in one of them, nothing else shared but the birth date
    user(221, { name_first: 'Marte', name_last: 'Kvernmo', email: 'marte.k@gmail.com', phone: '', birthday: '1988-11-30' }),
    // no e-mail or phone on either side (as in the set without contacts, bench/contactless-identities):
    // the last name written in the first name's field, the last name's field empty
    user(222, { name_first: 'Solheim', name_last: null, email: '', phone: '', birthday: '1979-01-15', address: 'Fjordveien 12', zip_code: '5003', city: 'Bergen' }),
    // the town written in the street field and the street in the town's, a slip in the postal code
    user(223, { name_first: 'Vegard', name_last: 'Aasen', email: '', phone: '', birthday: '1966-10-02', address: 'Lillehammer', zip_code: '2615', city: 'Storgata 8' }),
    // a first name cut short in the other system
    user(224, { name_first: 'Lily', name_last: 'Haugland', email: '', phone: '', birthday: '2004-12-24', address: 'Haugveien 3', zip_code: '4005', city: 'Stavanger' }),
    // a household mailbox and address: first names two letters apart but not cut short (Jon, Bjørn): two fans
    user(225, { name_first: 'Jon', name_last: 'Kristiansen', email: 'kristiansen.home@online.no', phone: '', address: 'Parkveien 99', zip_code: '0150', city: 'Oslo' }),
    // known by her second given name in the other system
    user(226, { name_first: 'Kari Ingeborg', name_last: 'Solstad', email: 'kms@online.no', phone: '' }),
  ],
  ticketing_members: [
    // a middle name in the member's one name field only; the phone written nationally
    { id: 601, last_update: '2026-01-01T00:00:00.000Z', name: 'Henrik Mats Svendsen', phone: '93 33 32 10', category: 'Silver', category_id: 2 },
  ],
  engagement_customer_profiles: [
    profile(2001, { firstName: 'BJOERN', lastName: 'SOERENSEN', email: 'Bjorn.S@gmail.com ' }),
    profile(2002, { firstName: 'Ase', lastName: 'Nygård', email: 'ase.nygard@icloud.com', dateOfBirth: born('1971-03-04') }),
    profile(2003, { firstName: 'ida', lastName: 'petersen', email: 'ida.petersen.412@gmail.com', dateOfBirth: born('1980-02-02') }),
    profile(2004, { firstName: 'Magnus', lastName: 'Johnasen', email: 'mj@outlook.com', dateOfBirth: born('1982-04-04') }),
    profile(2005, { firstName: 'Lunde', lastName: 'Thea', email: 'thea.lunde@gmail.com' }),
    profile(2006, { firstName: 'Hilde', lastName: 'Moe', email: 'hilde.moe@gmail.com', phoneNumber: '+47 955 55 555' }),
    profile(2007, { firstName: 'Emil', lastName: 'Strnad', email: 'strnad@gmail.com', phoneNumber: '97777772', dateOfBirth: born('1999-09-09') }),
    profile(2008, { firstName: 'sofie', lastName: 'lien', email: 'sofie.lien@gmail.com', phoneNumber: '92222208', dateOfBirth: born('1990-08-08') }),
    profile(2009, { firstName: 'Krisitan', lastName: 'Dahl', email: 'kdahl@online.no' }),
    profile(2010, { firstName: 'Henrik', lastName: 'Svendsen', email: 'henrik.svendsen@icloud.com', phoneNumber: '+47 933 33 210' }),
    profile(2011, { firstName: 'Sebastina', lastName: 'Holmvik', email: 'sebastian.holmvik@outlook.com', dateOfBirth: born('1977-07-17') }),
    profile(2012, { firstName: 'Kari', lastName: 'Vik', email: 'vik.family@online.no', phoneNumber: '94444212' }),
    profile(2014, { firstName: 'Per', lastName: 'Hansen', email: 'per.hansen.2@gmail.com', dateOfBirth: born('1970-06-06') }),
    profile(2015, { firstName: 'Geir', lastName: 'Solberg', email: 'gsolberg@online.no', phoneNumber: '96666215' }),
    profile(2016, { firstName: 'Arild', lastName: 'Dahle', email: 'dahle@online.no', phoneNumber: '96666216', dateOfBirth: born('1985-08-08') }),
    profile(2017, { lastName: 'Lie', email: 'lie.family@online.no' }),
    profile(2019, { firstName: 'Eli', lastName: 'Berge', email: 'berge.twins@online.no', phoneNumber: '95555219', dateOfBirth: born('2001-02-03'), street: 'Bakken 4', postalCode: '7030' }),
    profile(2020, { firstName: 'Tobias', lastName: 'Ruud', email: 'truud@work.example', phoneNumber: '95555229', dateOfBirth: born('1993-06-15'), street: 'Solbaken 17', postalCode: '3050' }),
    profile(2021, { firstName: 'Kvernmo', lastName: 'Marta', email: 'mk@work.example', dateOfBirth: born('1988-11-30') }),
    profile(2022, { firstName: 'Ingrid', lastName: 'Solheim', dateOfBirth: born('1979-01-15'), street: 'Fjordveien 12', postalCode: '5003', city: 'Bergen' }),
    profile(2023, { firstName: 'Vegard', lastName: 'Aasen', dateOfBirth: born('1966-10-02'), street: 'Storgata 8', postalCode: '2616', city: 'Lillehammer' }),
    profile(2024, { firstName: 'Ly', lastName: 'Haugland', dateOfBirth: born('2004-12-24'), street: 'Haugveien 3', postalCode: '4005', city: 'Stavanger' }),
    profile(2025, { firstName: 'Bjørn', lastName: 'Kristiansen', email: 'kristiansen.home@online.no', street: 'Parkveien 99', postalCode: '0150', city: 'Oslo' }),
    profile(2026, { firstName: 'Ingeborg', lastName: 'Solstad', email: 'kms@online.no' }),
  ],
};

const SAME_FAN: [string, string, string][] = [
  ['ticketing_user:201', 'engagement_customer_profile:2001', 'model_v1'],
  ['ticketing_user:202', 'engagement_customer_profile:2002', 'model_v1'],
  ['ticketing_user:203', 'engagement_customer_profile:2003', 'model_v1'],
  ['ticketing_user:204', 'engagement_customer_profile:2004', 'model_v1'],
  ['ticketing_user:205', 'engagement_customer_profile:2005', 'model_v1'],
  ['ticketing_user:208', 'engagement_customer_profile:2008', 'model_v1'],
  ['ticketing_user:209', 'engagement_customer_profile:2009', 'model_v1'],
  ['ticketing_member:601', 'engagement_customer_profile:2010', 'model_v1'],
  ['ticketing_user:211', 'engagement_customer_profile:2011', 'model_v1'],
  ['ticketing_user:215', 'engagement_customer_profile:2015', 'model_v1'],
  ['ticketing_user:220', 'engagement_customer_profile:2020', 'model_v1'],
  ['ticketing_user:221', 'engagement_customer_profile:2021', 'model_v1'],
  ['ticketing_user:222', 'engagement_customer_profile:2022', 'model_v1'],
  ['ticketing_user:223', 'engagement_customer_profile:2023', 'model_v1'],
  ['ticketing_user:224', 'engagement_customer_profile:2024', 'model_v1'],
  ['ticketing_user:226', 'engagement_customer_profile:2026', 'model_v1'],
];
const APART: [string, string][] = [
  ['ticketing_user:206', 'engagement_customer_profile:2006'],
  ['ticketing_user:207', 'engagement_customer_profile:2007'],
  ['ticketing_user:212', 'engagement_customer_profile:2012'],
  ['ticketing_user:213', 'ticketing_user:212'],
  ['ticketing_user:213', 'engagement_customer_profile:2012'],
  ['ticketing_user:214', 'engagement_customer_profile:2014'],
  ['ticketing_user:216', 'engagement_customer_profile:2016'],
  ['ticketing_user:217', 'engagement_customer_profile:2017'],
  ['ticketing_user:218', 'engagement_customer_profile:2017'],
  ['ticketing_user:217', 'ticketing_user:218'],
  ['ticketing_user:219', 'engagement_customer_profile:2019'],
  ['ticketing_user:225', 'engagement_customer_profile:2025'],
];

let placement: TrapPlacement;

beforeAll(async () => {
  placement = await placeTrapRecords(RAW, ['+fan_identity_review', '+fan_identity_evidence']);
});

describe('identity resolution through real-world noise', () => {
  itPlacesTraps(SAME_FAN, APART, () => placement);

  it('compares the slips in birth date, phone and street line at their typo levels, and the swapped names crosswise', async () => {
    const rows = await queryWarehouse(
      placement.dataDir,
      `select * from marts.fan_identity_evidence where (from_key, to_key) in (('engagement_customer_profile:2020', 'ticketing_user:220'), ('engagement_customer_profile:2021', 'ticketing_user:221'))`,
    );
    const slips = rows.find((row) => row.to_key === 'ticketing_user:220')!;
    expect(slips).toMatchObject({ birth_date_level: 'one_digit', phone_level: 'one_digit', address_level: 'street_slip', email_level: 'different' });
    const swapped = rows.find((row) => row.to_key === 'ticketing_user:221')!;
    expect(swapped).toMatchObject({ names_crossed: true, first_name_level: 'one_edit', last_name_level: 'exact' });
  });

  it('keeps twins sharing an e-mail apart by their first names, a veto whatever else they share', async () => {
    const [pair] = await queryWarehouse(
      placement.dataDir,
      `select * from intermediate.int_identity_pairs where from_key = 'engagement_customer_profile:2019' and to_key = 'ticketing_user:219'`,
    );
    expect(pair).toMatchObject({ is_vetoed: true, is_link: false });
    expect(Number(pair!.match_probability)).toBeGreaterThan(0.95);
  });

  it('shows a link of one e-mail and one name whose phones differ with the phones\' weight against it', async () => {
    const [link] = await queryWarehouse(
      placement.dataDir,
      `select * from marts.fan_identity_evidence where from_key = 'engagement_customer_profile:2015' and to_key = 'ticketing_user:215'`,
    );
    expect(link).toMatchObject({ match_rule: 'model_v1', email_level: 'exact', first_name_level: 'exact', last_name_level: 'exact', phone_level: 'different' });
    expect(link!.phone_weight).toBeLessThan(0);
    expect(link!.email_weight).toBeGreaterThan(0);
    expect(link!.from_values).toContain('phone 96666215');
    expect(link!.to_values).toContain('phone 95555215');
    expect(link!.match_probability).toBeGreaterThanOrEqual(0.95);
  });
});

describe('term frequency of an agreeing name', () => {
  it('weighs a name of several words by the word the two share (Ingeborg of Kari Ingeborg), not by the first spelling', async () => {
    const [pair] = await queryWarehouse(
      placement.dataDir,
      `select pairs.first_name_weight, pairs.first_name_level, model.first_name_tf_m,
           -- as the model in force froze it (a word one person carries weighs as one person's share)
           coalesce((select term_frequency from macros.identity_model_term_frequencies() where word = 'ingeborg'), macros.identity_model_rare_term_frequency()) as term_frequency
       from intermediate.int_identity_pairs as pairs
       cross join macros.identity_model_weights() as model
       where pairs.from_key = 'engagement_customer_profile:2026' and pairs.to_key = 'ticketing_user:226'`,
    );
    expect(pair!.first_name_level).toBe(1);
    expect(pair!.first_name_weight).toBeCloseTo(Math.log2(pair!.first_name_tf_m / pair!.term_frequency), 9);
    // the spelling of the name of two words is another word's, and weighs otherwise
    const [written] = await queryWarehouse(placement.dataDir, `select first_name_spelling, first_name_tf from intermediate.int_identity_comparables where record_key = 'ticketing_user:226'`);
    expect(written!.first_name_spelling).toBe('kari');
    expect(written!.first_name_tf).not.toBe(pair!.term_frequency);
  });
});
