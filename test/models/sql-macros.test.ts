import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_MEMORY, openDatabase, queryRows, quoteLiteral } from '../../src/core/duckdb.js';
import type { DuckDBInstance } from '@duckdb/node-api';
import { discoverProject } from '../../src/models/discover-project.js';
import { createMacros, DEFAULT_MACRO_SETTINGS, parseMacros, settingMacros } from '../../src/models/macros.js';
import { readIdentityModelConfig } from '../../src/models/identity-model/config.js';
import { DEFAULT_IDENTITY_THRESHOLDS, identityModelMacros } from '../../src/models/identity-model/macros.js';

// The shipped sql/macros, with values written by hand (the rules in docs/decisions.md).
let instance: DuckDBInstance;
let connection: DuckDBConnection;

async function useSettings(phoneDefaultCountryCode: string): Promise<void> {
  const project = await discoverProject();
  // the identity model's macros (configuration, no trained model), which macros of sql/macros call
  const identity = identityModelMacros((await readIdentityModelConfig(project.root))!, undefined, DEFAULT_IDENTITY_THRESHOLDS);
  const { nodes, problems } = await parseMacros([...settingMacros({ phoneDefaultCountryCode }), ...identity, ...project.macros]);
  expect(problems).toEqual([]);
  await createMacros(connection, nodes);
}

async function apply(macro: string, inputs: (string | null)[]): Promise<(string | null)[]> {
  const values = inputs.map((input, position) => `(${position}, ${input === null ? 'null' : quoteLiteral(input)}::varchar)`).join(', ');
  const rows = await queryRows(connection, `select macros.${macro}(input) as output from (values ${values}) as inputs(position, input) order by position`);
  return rows.map((row) => row.output as string | null);
}

beforeAll(async () => {
  instance = await openDatabase(IN_MEMORY, { threads: 1 });
  connection = await instance.connect();
  await useSettings(DEFAULT_MACRO_SETTINGS.phoneDefaultCountryCode);
});
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

describe('sql/macros', () => {
  it('phone_e164: every written form of a number, a bare 8-digit one with the default +47', async () => {
    expect(
      await apply('phone_e164', ['90 12 34 56', '+47 901 23 456', '0047 90123456', '004670-123 45 67', 'tel:+46-70-123 45 67', '090123456', '12345', '+47 9012', '', null]),
    ).toEqual(['+4790123456', '+4790123456', '+4790123456', '+46701234567', '+46701234567', null, null, null, null, null]);
  });

  it('phone_e164 takes the default country code from the setting', async () => {
    await useSettings('+45');
    try {
      expect(await apply('phone_e164', ['90 12 34 56', '+47 901 23 456'])).toEqual(['+4590123456', '+4790123456']);
    } finally {
      await useSettings(DEFAULT_MACRO_SETTINGS.phoneDefaultCountryCode);
    }
  });

  it('utc_month: the month a moment falls in, in UTC, whatever the session time zone', async () => {
    await connection.run(`set TimeZone = 'Pacific/Auckland'`);
    try {
      const moments = ['2026-01-31 23:59:59.999999+00', '2026-02-01 00:00:00+00', '2026-01-31 23:30:00-01', '1969-12-31 23:59:59+00', '1900-03-01 00:00:00+00', null];
      const rows = await queryRows(
        connection,
        `select cast(macros.utc_month(moment::timestamptz) as varchar) as month, macros.utc_month(moment::timestamptz) is not distinct from cast(date_trunc('month', moment::timestamptz at time zone 'UTC') as date) as same
         from (values ${moments.map((moment, position) => `(${position}, ${moment === null ? 'null' : quoteLiteral(moment)})`).join(', ')}) as moments(position, moment) order by position`,
      );
      expect(rows.map((row) => row.month)).toEqual(['2026-01-01', '2026-02-01', '2026-02-01', '1969-12-01', '1900-03-01', null]);
      expect(rows.every((row) => row.same === true)).toBe(true);
    } finally {
      await connection.run(`reset TimeZone`);
    }
  });

  it('email_normalized trims and lowercases, nothing else', async () => {
    expect(await apply('email_normalized', [' Ada@Example.COM ', 'not an e-mail', '   ', null])).toEqual(['ada@example.com', 'not an e-mail', null, null]);
  });

  it('name folding spells out æ and ø and strips å and other accents', async () => {
    expect(await apply('name_folded', ['Åse', 'BJØRN', 'Kjær', 'Hélène'])).toEqual(['ase', 'bjorn', 'kjaer', 'helene']);
    expect(await apply('first_name_key', ['ANNE-MARIE', 'Anne Marie', 'Åsmund', '  ', null])).toEqual(['anne', 'anne', 'asmund', null, null]);
    expect(await apply('last_name_key', ['Berg-Hansen', 'Ødegård', 'Bæk Sørensen', '--'])).toEqual(['berghansen', 'odegard', 'baeksorensen', null]);
  });

  it('fans_dropped: the kept fans int_fan_contacts no longer holds, found by the row counts, a new fan balancing a gone one or not', async () => {
    // a table of one row per fan, last built on the 2nd; the fans computed since are stamped after it
    await connection.run(`
      create schema if not exists intermediate; create schema if not exists marts;
      insert into meta.build_state (relation, fingerprint, built_at) values ('marts.kept', 'test', '2026-01-02');
      create table marts.kept as select unnest(['a', 'b', 'c']) as fan_id;
      create table intermediate.int_fan_contacts (fan_id varchar, changed_at timestamptz)`);
    const dropped = async (fans: [string, string][]) => {
      await connection.run(`delete from intermediate.int_fan_contacts`);
      await connection.run(`insert into intermediate.int_fan_contacts values ${fans.map(([fan, at]) => `('${fan}', '${at}')`).join(', ')}`);
      return (await queryRows(connection, `select fan_id from macros.fans_dropped('marts.kept') order by fan_id`)).map((row) => row.fan_id);
    };
    try {
      // as built, and a fan computed again since
      expect(await dropped([['a', '2026-01-01'], ['b', '2026-01-03'], ['c', '2026-01-01']])).toEqual([]);
      // c gone and d new: as many fans as before
      expect(await dropped([['a', '2026-01-03'], ['b', '2026-01-01'], ['d', '2026-01-03']])).toEqual(['c']);
      // c gone, and a fan computed again since
      expect(await dropped([['a', '2026-01-01'], ['b', '2026-01-03']])).toEqual(['c']);
      // new fans alone
      expect(await dropped([['a', '2026-01-01'], ['b', '2026-01-01'], ['c', '2026-01-01'], ['e', '2026-01-03']])).toEqual([]);
    } finally {
      await connection.run(`delete from meta.build_state where relation = 'marts.kept'; drop table marts.kept; drop table intermediate.int_fan_contacts`);
    }
  });
});
