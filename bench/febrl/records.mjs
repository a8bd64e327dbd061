// The public Febrl 4 data set (two files of 5,000 persons each, rec-N-org and rec-N-dup-0 the
// same person N) read and served as the two APIs send persons: each 4a row a ticketing user,
// each 4b row an engagement customer profile. The files are not ours and are never shipped:
// whoever runs bench/febrl.mjs downloads them. The related-first-names classification is the
// one the identity goal on this set is stated over (recall over pairs whose first names are related).

/** The header of both files, as the data set writes it. */
export const FEBRL_COLUMNS = ['rec_id', 'given_name', 'surname', 'street_number', 'address_1', 'address_2', 'suburb', 'postcode', 'state', 'date_of_birth', 'soc_sec_id'];

/** Where the ids of each system start, so a record's id is the person's number plus this. */
const ID_BASE = { ticketing_user: 20_000, engagement_customer_profile: 800_000 };

/**
 * The rows of one Febrl CSV file as objects keyed by FEBRL_COLUMNS: fields split on commas
 * (no field is quoted), the space after each comma dropped as the data set's own reader does
 * (skipinitialspace), an empty field null.
 * @param {string} text
 * @returns {Record<string, string | null>[]}
 */
export function parseFebrlCsv(text) {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const header = lines[0].split(',').map((name) => name.trim());
  if (header.join(',') !== FEBRL_COLUMNS.join(',')) throw new Error(`not a Febrl file: the header is ${lines[0]}`);
  return lines.slice(1).map((line, at) => {
    const fields = line.split(',').map((field) => field.replace(/^\s+/, ''));
    if (fields.length !== FEBRL_COLUMNS.length) throw new Error(`row ${at + 2} has ${fields.length} fields, not ${FEBRL_COLUMNS.length}: ${line}`);
    return Object.fromEntries(FEBRL_COLUMNS.map((name, column) => [name, fields[column] === '' ? null : fields[column]]));
  });
}

/** The person a rec_id names: rec-1070-org and rec-1070-dup-0 are both 1070. */
export function febrlPerson(recId) {
  const match = /^rec-(\d+)-(org|dup-\d+)$/.exec(recId ?? '');
  if (!match) throw new Error(`not a Febrl record id: ${recId}`);
  return Number(match[1]);
}

/** A Febrl birth date (yyyymmdd) as an ISO date, or null where it is missing or no calendar date (the data set's noise makes some). */
export function febrlBirthDate(value) {
  if (!value || !/^\d{8}$/.test(value)) return null;
  const iso = `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}`;
  const date = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === iso ? iso : null;
}

/** The street line: house number and street; address_2 (a building or property name) has no field in either API. */
function streetLine(row) {
  const line = [row.street_number, row.address_1].filter((part) => part !== null).join(' ');
  return line === '' ? null : line;
}

/**
 * Both files as the raw items of the two APIs and the truth: 4a's rows as ticketing users, 4b's
 * as customer profiles (names, birth date, street line, postcode, suburb as the town; no e-mail
 * or phone, and soc_sec_id left out: neither API has such a field). `invalidBirthDates` counts
 * the birth dates that are not calendar dates, sent as missing.
 * @param {Record<string, string | null>[]} rowsA
 * @param {Record<string, string | null>[]} rowsB
 */
export function febrlIdentities(rowsA, rowsB) {
  const raw = { ticketing_users: [], engagement_customer_profiles: [] };
  const truth = [];
  const names = new Map();
  let invalidBirthDates = 0;
  const birthDate = (value) => {
    const date = febrlBirthDate(value);
    if (value && !date) invalidBirthDates++;
    return date;
  };
  const updated = '2026-06-01T00:00:00.000Z';
  for (const row of rowsA) {
    const person = febrlPerson(row.rec_id);
    const id = ID_BASE.ticketing_user + person;
    raw.ticketing_users.push({
      id, last_update: updated, enabled: true, name_first: row.given_name, name_last: row.surname,
      birthday: birthDate(row.date_of_birth), address: streetLine(row), zip_code: row.postcode, city: row.suburb,
    });
    truth.push({ system: 'ticketing_user', recordId: String(id), personId: person });
    names.set(`ticketing_user:${id}`, { first: row.given_name, last: row.surname });
  }
  for (const row of rowsB) {
    const person = febrlPerson(row.rec_id);
    const id = String(ID_BASE.engagement_customer_profile + person);
    const date = birthDate(row.date_of_birth);
    raw.engagement_customer_profiles.push({
      id, type: 'customerProfiles', firstName: row.given_name, lastName: row.surname,
      dateOfBirth: date ? `${date}T00:00:00.000Z` : null, street: streetLine(row), postalCode: row.postcode, city: row.suburb,
    });
    truth.push({ system: 'engagement_customer_profile', recordId: id, personId: person });
    names.set(`engagement_customer_profile:${id}`, { first: row.given_name, last: row.surname });
  }
  return { raw, truth, names, invalidBirthDates };
}

/** A name folded for comparison: lower case, accents dropped, only letters kept. */
export function foldName(name) {
  return (name ?? '').normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^\p{L}]/gu, '');
}

/** Jaro-Winkler similarity (prefix scale 0.1, up to four letters), 0 to 1. */
export function jaroWinkler(a, b) {
  if (a === b) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
  const matchedB = new Array(b.length).fill(false);
  const matchesA = [];
  for (let i = 0; i < a.length; i++) {
    for (let j = Math.max(0, i - window); j <= Math.min(b.length - 1, i + window); j++) {
      if (matchedB[j] || a[i] !== b[j]) continue;
      matchedB[j] = true;
      matchesA.push(a[i]);
      break;
    }
  }
  const matches = matchesA.length;
  if (matches === 0) return 0;
  const matchesB = [...b].filter((_, j) => matchedB[j]);
  const transpositions = matchesA.filter((char, at) => char !== matchesB[at]).length / 2;
  const jaro = (matches / a.length + matches / b.length + (matches - transpositions) / matches) / 3;
  let prefix = 0;
  while (prefix < Math.min(4, a.length, b.length) && a[prefix] === b[prefix]) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

/** The goal's threshold for two first names that are a slip apart (Jaro-Winkler). */
export const RELATED_JARO_WINKLER = 0.88;

/**
 * How the first names of two records of one person relate, as the related-names goal counts them:
 * 'missing' (one or both missing), 'same' (the same after folding), 'similar' (Jaro-Winkler at
 * least RELATED_JARO_WINKLER), 'swapped' (one record's first name is the other's surname),
 * 'initial' (one is a single letter the other starts with), else 'unrelated'. Every kind but
 * 'unrelated' is related.
 * @param {{ first: string | null, last: string | null }} a
 * @param {{ first: string | null, last: string | null }} b
 * @returns {'missing' | 'same' | 'similar' | 'swapped' | 'initial' | 'unrelated'}
 */
export function firstNameRelation(a, b) {
  const [firstA, firstB] = [foldName(a.first), foldName(b.first)];
  if (firstA === '' || firstB === '') return 'missing';
  if (firstA === firstB) return 'same';
  if (jaroWinkler(firstA, firstB) >= RELATED_JARO_WINKLER) return 'similar';
  if (firstA === foldName(b.last) || firstB === foldName(a.last)) return 'swapped';
  const [shorter, longer] = firstA.length <= firstB.length ? [firstA, firstB] : [firstB, firstA];
  if (shorter.length === 1 && longer.startsWith(shorter)) return 'initial';
  return 'unrelated';
}
