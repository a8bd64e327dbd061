import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, queryRows } from '../../src/core/duckdb.js';
import { buildModels, ModelProjectError } from '../../src/models/index.js';
import type { Lineage } from '../../src/models/lineage.js';
import { runCli } from '../helpers/cli.js';
import { type Workspace, workspace, statuses } from './fixtures.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => ws.cleanup());

const RAW = `
  create schema raw;
  create table raw.people as select * from (values (1, ' Ada@Example.com ', '90 12 34 56'), (2, 'bob@example.com', '0046 70 123 45 67')) as people(id, email, phone);
  create table raw.teams as select 1 as id, 'Lyn' as name;`;

const PROJECT = {
  'macros/clean_email.sql': `-- description: trimmed, lowercased
create or replace macro macros.clean_email(email) as nullif(lower(trim(email)), '');\n`,
  'macros/clean_phone.sql': `create or replace macro macros.clean_phone(phone) as macros.digits(phone);\n`,
  'macros/digits.sql': `create or replace macro macros.digits(value) as regexp_replace(value, '[^0-9]', '', 'g');\n`,
  'staging/stg_people.sql': 'select id, macros.clean_email(email) as email, macros.clean_phone(phone) as phone from raw.people\n',
  'staging/stg_teams.sql': 'select id, name from raw.teams\n',
  'marts/people_emails.sql': 'select email from staging.stg_people\n',
  'marts/team_count.sql': 'select count(*) as n from staging.stg_teams\n',
};

describe('macros', () => {
  it('are created in the warehouse, where a plain DuckDB session runs each model file unchanged', async () => {
    await ws.exec(RAW);
    await ws.write(PROJECT);
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });

    // A session of DuckDB alone (no fanlake code in between), as an analyst's shell would be.
    const instance = await openDatabase(ws.warehouse, { accessMode: 'READ_ONLY' });
    try {
      const connection = await instance.connect();
      const fromFile = await queryRows(connection, await readFile(`${ws.modelsDir}/staging/stg_people.sql`, 'utf8'));
      expect(fromFile).toEqual([
        { id: 1, email: 'ada@example.com', phone: '90123456' },
        { id: 2, email: 'bob@example.com', phone: '0046701234567' },
      ]);
      expect(await queryRows(connection, 'select * from staging.stg_people order by id')).toEqual(fromFile);
      connection.closeSync();
    } finally {
      instance.closeSync();
    }
    const lineage = JSON.parse(await readFile(`${ws.dataDir}/lineage.json`, 'utf8')) as Lineage;
    expect(lineage.models.find((model) => model.name === 'stg_people')!.parents.macros).toEqual(['macros.clean_email', 'macros.clean_phone']);
    expect(lineage.models.find((model) => model.name === 'people_emails')!.parents.macros).toEqual([]);
  });

  it('a changed macro rebuilds the models that call it, directly or through another macro, and their descendants only', async () => {
    await ws.exec(RAW);
    await ws.write(PROJECT);
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(statuses(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir }))).toEqual({
      stg_people: 'unchanged',
      stg_teams: 'unchanged',
      people_emails: 'unchanged',
      team_count: 'unchanged',
    });

    await ws.write({ 'macros/clean_email.sql': `create or replace macro macros.clean_email(email) as upper(trim(email));\n` });
    expect(statuses(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir }))).toEqual({
      stg_people: 'ok',
      stg_teams: 'unchanged',
      people_emails: 'ok',
      team_count: 'unchanged',
    });
    expect(await ws.query('select email from marts.people_emails order by email')).toEqual([{ email: 'ADA@EXAMPLE.COM' }, { email: 'BOB@EXAMPLE.COM' }]);

    // digits is called only through clean_phone.
    await ws.write({ 'macros/digits.sql': `create or replace macro macros.digits(value) as regexp_replace(value, '[^0-9+]', '', 'g');\n` });
    expect(statuses(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir }))).toMatchObject({ stg_people: 'ok', stg_teams: 'unchanged', people_emails: 'ok' });
    expect(await ws.query('select phone from staging.stg_people order by id')).toEqual([{ phone: '90123456' }, { phone: '0046701234567' }]);
  });

  it('the default phone country code is a setting build writes into a macro; changing it rebuilds the phone models', async () => {
    await ws.exec(RAW);
    await ws.write({
      'macros/phone.sql': `create or replace macro macros.phone(phone) as macros.phone_default_country_code() || regexp_replace(phone, '[^0-9]', '', 'g');\n`,
      'staging/stg_people.sql': 'select id, macros.phone(phone) as phone from raw.people\n',
      'staging/stg_teams.sql': 'select id, name from raw.teams\n',
    });
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(await ws.query('select phone from staging.stg_people where id = 1')).toEqual([{ phone: '+4790123456' }]);

    const results = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, macroSettings: { phoneDefaultCountryCode: '+45' } });
    expect(statuses(results)).toEqual({ stg_people: 'ok', stg_teams: 'unchanged' });
    expect(await ws.query('select phone from staging.stg_people where id = 1')).toEqual([{ phone: '+4590123456' }]);
    expect(await ws.query(`select macros.phone_default_country_code() as code`)).toEqual([{ code: '+45' }]);
  });

  it('a build creates only the macros whose text changed, or that were replaced by other means', async () => {
    await ws.exec(RAW);
    await ws.write(PROJECT);
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    const stamps = async () =>
      Object.fromEntries((await ws.query(`select function_name, comment from duckdb_functions() where schema_name = 'macros' and function_name in ('clean_email', 'digits', 'clean_phone')`)).map((row) => [row.function_name, row.comment]));
    const first = await stamps();
    expect(Object.values(first).every((comment) => typeof comment === 'string' && comment.startsWith('fanlake '))).toBe(true);

    // replaced by hand: no stamp, so the next build writes the file's text back
    await ws.exec(`create or replace macro macros.clean_email(email) as 'x'`);
    await ws.write({ 'macros/digits.sql': `create or replace macro macros.digits(value) as regexp_replace(value, '[^0-9+]', '', 'g');\n` });
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    const second = await stamps();
    expect(second.clean_email).toBe(first.clean_email);
    expect(second.clean_phone).toBe(first.clean_phone);
    expect(second.digits).not.toBe(first.digits);
    expect(await ws.query(`select macros.clean_email(' A@B.C ') as email, macros.clean_phone('+47 90') as phone`)).toEqual([{ email: 'a@b.c', phone: '+4790' }]);
  });

  it('a macro whose file is gone is dropped from the warehouse', async () => {
    await ws.exec(RAW);
    await ws.write(PROJECT);
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    await ws.remove('macros/clean_email.sql');
    await ws.write({ 'staging/stg_people.sql': 'select id, macros.clean_phone(phone) as phone from raw.people\n', 'marts/people_emails.sql': 'select phone from staging.stg_people\n' });
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    const names = await ws.query(`select distinct function_name from duckdb_functions() where schema_name = 'macros' order by 1`);
    expect(names.map((row) => row.function_name)).toEqual([
      'clean_phone', 'club_consent_meanings', 'club_display_names', 'club_first_name_forms', 'club_order_status_groups', 'club_order_type_groups', 'club_sales_channels', 'digits', 'identity_overrides', 'phone_default_country_code',
    ]);
  });

  it('reports unknown, unqualified and misnamed macros before anything runs', async () => {
    await ws.exec(RAW);
    await ws.write({
      ...PROJECT,
      'macros/wrong_name.sql': `create or replace macro macros.other_name(x) as x;\n`,
      'macros/broken.sql': `create or replace macro macros.broken(x) as (x;\n`,
      'staging/stg_people.sql': 'select id, macros.clean_emial(email) as email, clean_phone(phone) as phone from raw.people\n',
    });
    const error = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelProjectError);
    const problems = (error as ModelProjectError).problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        'sql/macros/wrong_name.sql: does not create macros.wrong_name; the file holds create or replace macro macros.wrong_name(...) as ...',
        'macros.other_name is created by a file of another name; each macro is sql/macros/<its name>.sql',
        expect.stringMatching(/^sql\/macros\/broken\.sql: does not run: /),
        'sql/staging/stg_people.sql: calls macros.clean_emial, which is no macro in sql/macros (did you mean macros.clean_email?)',
        'sql/staging/stg_people.sql: calls clean_phone(...) without its schema; write macros.clean_phone(...)',
      ]),
    );
    expect(problems).toHaveLength(5);
    expect(await ws.query(`select count(*)::int as n from duckdb_views() where schema_name = 'staging'`)).toEqual([{ n: 0 }]);
  });

  it('build creates the shipped macros with the country code of FANLAKE_PHONE_DEFAULT_COUNTRY_CODE or --phone-country-code, and sql reads them', async () => {
    const env = { FANLAKE_DATA_DIR: ws.dataDir, FANLAKE_PHONE_DEFAULT_COUNTRY_CODE: '46' };
    // Nothing is loaded, so the models fail; the macros are created before any model runs.
    expect((await runCli(['build'], env)).code).toBe(1);
    const query = `select macros.phone_e164('90 12 34 56') as phone, macros.first_name_key('Åse-Marie') as name`;
    expect(JSON.parse((await runCli(['sql', query, '--format', 'json'], env)).stdout)).toEqual([{ phone: '+4690123456', name: 'ase' }]);
    expect((await runCli(['build', '--phone-country-code', '+45'], env)).code).toBe(1);
    expect(JSON.parse((await runCli(['sql', query, '--format', 'json'], env)).stdout)).toEqual([{ phone: '+4590123456', name: 'ase' }]);
  });
});
