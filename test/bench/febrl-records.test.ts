import { describe, expect, it } from 'vitest';
import { febrlBirthDate, febrlIdentities, firstNameRelation, jaroWinkler, parseFebrlCsv } from '../../bench/febrl/records.mjs';

// A few rows in the data set's own shape (written here: no Febrl data is in the repository).
const HEADER = 'rec_id, given_name, surname, street_number, address_1, address_2, suburb, postcode, state, date_of_birth, soc_sec_id';
const FILE_A = [
  HEADER,
  'rec-7-org, kari, nordby, 12, storgata, unit 4, lillestrom, 2000, nsw, 19800115, 1234567',
  'rec-8-org, , olsen, , , , , 0812, vic, , 7654321',
  '',
].join('\n');
const FILE_B = [HEADER, 'rec-7-dup-0, karri, nordby, 12, storgata, , lillestrom, 2000, nsw, 19800231, 1234567', 'rec-8-dup-0, per, olsen, 3, kirkeveien, , oslo, 0812, vic, 19700101, 7654321'].join('\n');

describe('parseFebrlCsv', () => {
  it('splits on commas, drops the space after each, and reads empty fields as missing', () => {
    const rows = parseFebrlCsv(FILE_A);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ rec_id: 'rec-7-org', given_name: 'kari', street_number: '12', address_2: 'unit 4', postcode: '2000', date_of_birth: '19800115' });
    expect(rows[1]).toMatchObject({ given_name: null, street_number: null, address_1: null, postcode: '0812', date_of_birth: null });
  });

  it('refuses a file of another shape and a row with a field too many', () => {
    expect(() => parseFebrlCsv('id,name\n1,kari')).toThrow(/not a Febrl file/);
    expect(() => parseFebrlCsv(`${HEADER}\nrec-1-org, a, b, 1, c, d, e, 2000, nsw, 19800101, 1, extra`)).toThrow(/12 fields/);
  });
});

describe('febrlIdentities', () => {
  it('serves 4a as ticketing users and 4b as customer profiles, one person per number, no social security number', () => {
    const set = febrlIdentities(parseFebrlCsv(FILE_A), parseFebrlCsv(FILE_B));
    expect(set.raw.ticketing_users[0]).toMatchObject({ id: 20_007, name_first: 'kari', name_last: 'nordby', birthday: '1980-01-15', address: '12 storgata', zip_code: '2000', city: 'lillestrom' });
    expect(set.raw.ticketing_users[1]).toMatchObject({ name_first: null, address: null, birthday: null });
    // 31 February is no date: sent as missing, and counted
    expect(set.raw.engagement_customer_profiles[0]).toMatchObject({ id: '800007', firstName: 'karri', dateOfBirth: null, street: '12 storgata', postalCode: '2000', city: 'lillestrom' });
    expect(set.invalidBirthDates).toBe(1);
    expect(JSON.stringify(set.raw)).not.toContain('1234567');
    expect(set.truth.filter((record) => record.personId === 7).map((record) => record.system)).toEqual(['ticketing_user', 'engagement_customer_profile']);
  });

  it('reads yyyymmdd birth dates', () => {
    expect(febrlBirthDate('19000229')).toBeNull();
    expect(febrlBirthDate('20000229')).toBe('2000-02-29');
    expect(febrlBirthDate('1980011')).toBeNull();
  });
});

describe('firstNameRelation', () => {
  const name = (first: string | null, last = 'nordby') => ({ first, last });

  it('tells the kinds the related-names goal counts as related apart from unrelated names', () => {
    expect(firstNameRelation(name('Kari'), name('kári'))).toBe('same');
    expect(firstNameRelation(name('kari'), name('karri'))).toBe('similar');
    expect(firstNameRelation(name('nordby', 'kari'), name('kari'))).toBe('swapped');
    expect(firstNameRelation(name('k'), name('kari'))).toBe('initial');
    expect(firstNameRelation(name(null), name('kari'))).toBe('missing');
    expect(firstNameRelation(name('kari'), name('ola'))).toBe('unrelated');
    // Kate/Katherine is 0.87: a short form, but not related by this definition
    expect(firstNameRelation(name('kate'), name('katherine'))).toBe('unrelated');
  });

  it('computes Jaro-Winkler as the literature does', () => {
    expect(jaroWinkler('martha', 'marhta')).toBeCloseTo(0.9611, 4);
    expect(jaroWinkler('dixon', 'dicksonx')).toBeCloseTo(0.8133, 4);
    expect(jaroWinkler('kate', 'katherine')).toBeCloseTo(0.8889 - 0.0222, 2);
  });
});
