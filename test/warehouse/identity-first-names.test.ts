import { beforeAll, describe, expect, it } from 'vitest';
import { queryWarehouse } from '../helpers/warehouse.js';
import { born, itPlacesTraps, placeTrapRecords, profile, type TrapPlacement, user } from './identity-fixture.js';

/**
 * First names as evidence, not a veto: a short form or nickname (the club's first_name_forms.csv)
 * of any word of the other, a part of the other (Kim, Joakim), an initial, each a level with its
 * own weight, so one person known by another form of the name in one system is one fan where
 * contact or birth date agree; and twins, whose first names are
 * unrelated, two fans whatever else they share. Built through the real models with a club's
 * trained identity model (identity-model-fixture.ts).
 */

const backdrop = [
  ['Kari', 'Lunde'], ['Ola', 'Lunde'], ['Per', 'Haugen'], ['Tone', 'Haugen'], ['Robert', 'Berge'], ['Thomas', 'Berge'],
].map(([first, last], at) => user(900 + at, { name_first: first, name_last: last, email: `backdrop${at}@example.org`, phone: '' }));

const RAW = {
  ticketing_users: [
    ...backdrop,
    user(401, { name_first: 'Kari', name_last: 'Nilsen', email: 'kari.nilsen@online.no', phone: '93000401', birthday: '1984-04-01' }),
    user(402, { name_first: 'Katherine', name_last: 'Moss', email: 'kmoss@example.com', phone: '', birthday: '1979-02-02' }),
    user(403, { name_first: 'Robert', name_last: 'Hall', email: 'rhall@example.com', phone: '93000403' }),
    user(404, { name_first: 'Peder', name_last: 'Aasland', email: '', phone: '93000404', birthday: '1961-06-06' }),
    user(405, { name_first: 'Thomas', name_last: 'Brun', email: 'tb@online.no', phone: '', birthday: '1990-09-19', address: 'Elvegata 5', zip_code: '3015', city: 'Drammen' }),
    // twins: one surname, birth date, address, household phone and e-mail; unrelated first names
    user(411, { name_first: 'Jonas', name_last: 'Fjeld', email: 'fjeld.home@online.no', phone: '93000411', birthday: '2003-03-03', address: 'Bakkane 2', zip_code: '5012', city: 'Bergen' }),
    // a Swedish number written nationally here, in E.164 there; a Norwegian one without its code here
    user(421, { name_first: 'Nina', name_last: 'Holtet', email: '', phone: '0701234421' }),
    user(422, { name_first: 'Odd', name_last: 'Viken', email: '', phone: '91234422' }),
    // a short form of one word of a first name of two (the words compared, not the whole spelling)
    user(406, { name_first: 'Kris', name_last: 'Berge', email: '', phone: '93000406', birthday: '1988-08-08' }),
    // a part of the name the club's file does not hold: its end, its start
    user(407, { name_first: 'Kim', name_last: 'Strand', email: 'kimstrand@example.com', phone: '', birthday: '1993-03-13' }),
    user(408, { name_first: 'Toffer', name_last: 'Lie', email: '', phone: '93000408', birthday: '1979-07-17' }),
    user(412, { name_first: 'Tobias', name_last: 'Fjeld', email: 'tobias.fjeld@gmail.com', phone: '', birthday: '2003-03-03', address: 'Bakkane 2', zip_code: '5012', city: 'Bergen' }),
  ],
  engagement_customer_profiles: [
    profile(4001, { firstName: 'K', lastName: 'Nilsen', email: 'kari.nilsen@online.no', phoneNumber: '93000401', dateOfBirth: born('1984-04-01') }),
    profile(4002, { firstName: 'Kate', lastName: 'Moss', email: 'kmoss@example.com', dateOfBirth: born('1979-02-02') }),
    profile(4003, { firstName: 'Bob', lastName: 'Hall', email: 'rhall@example.com', phoneNumber: '+47 930 00 403' }),
    profile(4004, { firstName: 'Per', lastName: 'Aasland', phoneNumber: '93000404', dateOfBirth: born('1961-06-06') }),
    // a short form, nothing shared but the name, the birth date and the address
    profile(4005, { firstName: 'Tom', lastName: 'Brun', dateOfBirth: born('1990-09-19'), street: 'Elvegata 5', postalCode: '3015', city: 'Drammen' }),
    profile(4006, { firstName: 'Kristian Øyvind', lastName: 'Berge', phoneNumber: '93000406', dateOfBirth: born('1988-08-08') }),
    profile(4007, { firstName: 'Joakim', lastName: 'Strand', email: 'kimstrand@example.com', dateOfBirth: born('1993-03-13') }),
    profile(4008, { firstName: 'Kristoffer', lastName: 'Lie', phoneNumber: '93000408', dateOfBirth: born('1979-07-17') }),
    profile(4021, { firstName: 'Nina', lastName: 'Holtet', phoneNumber: '+46 70 123 44 21' }),
    profile(4022, { firstName: 'Odd', lastName: 'Viken', phoneNumber: '+47 912 34 422' }),
    profile(4011, { firstName: 'Jonas', lastName: 'Fjeld', email: 'fjeld.home@online.no', phoneNumber: '93000411', dateOfBirth: born('2003-03-03'), street: 'Bakkane 2', postalCode: '5012', city: 'Bergen' }),
    profile(4012, { firstName: 'Tobias', lastName: 'Fjeld', email: 'fjeld.home@online.no', phoneNumber: '93000411', dateOfBirth: born('2003-03-03'), street: 'Bakkane 2', postalCode: '5012', city: 'Bergen' }),
  ],
};

const SAME_FAN: [string, string, string][] = [
  ['ticketing_user:401', 'engagement_customer_profile:4001', 'model_v1'],
  ['ticketing_user:402', 'engagement_customer_profile:4002', 'model_v1'],
  ['ticketing_user:403', 'engagement_customer_profile:4003', 'model_v1'],
  ['ticketing_user:404', 'engagement_customer_profile:4004', 'model_v1'],
  ['ticketing_user:405', 'engagement_customer_profile:4005', 'model_v1'],
  ['ticketing_user:406', 'engagement_customer_profile:4006', 'model_v1'],
  ['ticketing_user:407', 'engagement_customer_profile:4007', 'model_v1'],
  ['ticketing_user:408', 'engagement_customer_profile:4008', 'model_v1'],
  ['ticketing_user:411', 'engagement_customer_profile:4011', 'model_v1'],
  ['ticketing_user:412', 'engagement_customer_profile:4012', 'model_v1'],
];
const APART: [string, string][] = [
  ['ticketing_user:411', 'ticketing_user:412'],
  ['ticketing_user:411', 'engagement_customer_profile:4012'],
  ['engagement_customer_profile:4011', 'engagement_customer_profile:4012'],
];

let placement: TrapPlacement;

beforeAll(async () => {
  placement = await placeTrapRecords(RAW, ['+fan_identity_evidence']);
});

describe('first names as evidence', () => {
  itPlacesTraps(SAME_FAN, APART, () => placement);

  it('compares each at its own level, with a weight', async () => {
    const rows = await queryWarehouse(
      placement.dataDir,
      `select to_key, first_name_level, first_name_weight from marts.fan_identity_evidence where to_key in ('ticketing_user:401', 'ticketing_user:402', 'ticketing_user:403', 'ticketing_user:404', 'ticketing_user:406', 'ticketing_user:407', 'ticketing_user:408')`,
    );
    const levelOf = new Map(rows.map((row) => [row.to_key, row.first_name_level]));
    expect(Object.fromEntries(levelOf)).toEqual({
      'ticketing_user:401': 'initial', 'ticketing_user:402': 'short_form', 'ticketing_user:403': 'short_form', 'ticketing_user:404': 'short_form',
      'ticketing_user:406': 'short_form', 'ticketing_user:407': 'name_part', 'ticketing_user:408': 'name_part',
    });
    for (const row of rows) expect(typeof row.first_name_weight).toBe('number');
  });
});

describe('phones', () => {
  it('compares one number in E.164 (the default country code added) as exact, and the same last digits written nationally abroad as same_digits', async () => {
    const rows = await queryWarehouse(
      placement.dataDir,
      `select to_key, phone_level from marts.fan_identity_evidence where to_key in ('ticketing_user:421', 'ticketing_user:422')`,
    );
    expect(Object.fromEntries(rows.map((row) => [row.to_key, row.phone_level]))).toEqual({ 'ticketing_user:421': 'same_digits', 'ticketing_user:422': 'exact' });
  });
});
