import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildModels } from '../../src/models/build-models.js';
import type { BuildEvent, ModelResult } from '../../src/models/build-models.js';
import type { Lineage } from '../../src/models/lineage.js';
import { RAW_TICKETING, workspace } from './fixtures.js';
import type { Workspace } from './fixtures.js';

let ws: Workspace;

beforeEach(async () => {
  ws = await workspace();
});

afterEach(async () => {
  await ws.cleanup();
});

const STG_USERS = `-- description: One row per ticketing user.
select
    id as user_id,
    lower(email) as email,
    name as full_name,
from raw.ticketing_users
`;

const STG_TICKETS = `select
    id as ticket_id,
    id_user as user_id,
    status,
    price,
from raw.ticketing_tickets;
`;

const INT_SPEND = `with tickets as (
    select * from staging.stg_ticketing__tickets
),

paid as (
    select user_id, sum(price) as spend
    from tickets
    where status = 'paid'
    group by user_id
)

select * from paid
`;

const DIM_FAN = `-- materialized: table
select
    users.user_id as fan_id,
    users.email,
    coalesce(spend.spend, 0) as lifetime_spend,
from staging.stg_ticketing__users as users
left join intermediate.int_fan_spend as spend
    on users.user_id = spend.user_id
`;

const PROJECT = {
  'staging/ticketing/stg_ticketing__users.sql': STG_USERS,
  'staging/ticketing/stg_ticketing__tickets.sql': STG_TICKETS,
  'intermediate/int_fan_spend.sql': INT_SPEND,
  'marts/dim_fan.sql': DIM_FAN,
};

function byModel(results: ModelResult[], model: string): ModelResult {
  const result = results.find((candidate) => candidate.model === model);
  if (!result) throw new Error(`no result for ${model}`);
  return result;
}

/**
 * Builds marts.fct_events from each of `refused` in turn, which the project check refuses with
 * its message, then from `failed`, whose build fails with its message.
 */
async function expectHeaderProblems(refused: [sql: string, message: string][], failed: [sql: string, message: string]): Promise<void> {
  for (const [sql, message] of refused) {
    await ws.write({ 'marts/fct_events.sql': sql });
    await expect(buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir })).rejects.toThrow(message);
  }
  await ws.write({ 'marts/fct_events.sql': failed[0] });
  const [built] = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
  expect(built).toMatchObject({ status: 'failed' });
  expect(built!.error?.message).toContain(failed[1]);
}

describe('buildModels', () => {
  it('builds models after their parents, with the default materialization per layer', async () => {
    await ws.exec(RAW_TICKETING);
    await ws.write(PROJECT);
    const finished: string[] = [];
    const onEvent = (event: BuildEvent) => {
      if (event.type === 'node-finished') finished.push(event.result.model);
    };

    const results = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, onEvent });

    expect(results.map((r) => [r.schema, r.model, r.materialized, r.status])).toEqual([
      ['staging', 'stg_ticketing__tickets', 'view', 'ok'],
      ['staging', 'stg_ticketing__users', 'view', 'ok'],
      ['intermediate', 'int_fan_spend', 'table', 'ok'],
      ['marts', 'dim_fan', 'table', 'ok'],
    ]);
    expect(finished.indexOf('int_fan_spend')).toBeGreaterThan(finished.indexOf('stg_ticketing__tickets'));
    expect(finished.indexOf('dim_fan')).toBeGreaterThan(finished.indexOf('int_fan_spend'));
    expect(byModel(results, 'dim_fan').rows).toBe(3);
    expect(byModel(results, 'stg_ticketing__users').rows).toBeUndefined();
    expect(await ws.query('select fan_id, lifetime_spend::double as lifetime_spend from marts.dim_fan order by fan_id')).toEqual([
      { fan_id: 1, lifetime_spend: 20 },
      { fan_id: 2, lifetime_spend: 30 },
      { fan_id: 3, lifetime_spend: 0 },
    ]);
    expect(await ws.query(`select table_type from information_schema.tables where table_name = 'stg_ticketing__users'`)).toEqual([{ table_type: 'VIEW' }]);
  });

  it('builds independent branches from one staging layer', async () => {
    await ws.exec(RAW_TICKETING);
    await ws.write({
      ...PROJECT,
      'marts/fct_tickets.sql': 'select * from staging.stg_ticketing__tickets',
      'marts/dim_user_names.sql': 'select user_id, full_name from staging.stg_ticketing__users',
    });

    const results = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });

    expect(results.every((r) => r.status === 'ok')).toBe(true);
    expect(results).toHaveLength(6);
    expect(await ws.query('select count(*)::int as n from marts.fct_tickets')).toEqual([{ n: 3 }]);
    expect(await ws.query('select count(*)::int as n from marts.dim_user_names')).toEqual([{ n: 3 }]);
  });

  it('keeps the old table when a rebuild fails and skips its descendants, naming the failed parent', async () => {
    await ws.exec(RAW_TICKETING);
    await ws.write({ ...PROJECT, 'marts/fan_count.sql': 'select count(*) as fans from marts.dim_fan' });
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });

    // Parses fine, fails when DuckDB binds it: the column does not exist.
    await ws.write({ 'intermediate/int_fan_spend.sql': 'select user_id, no_such_column as spend from staging.stg_ticketing__tickets' });
    const results = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });

    const failed = byModel(results, 'int_fan_spend');
    expect(failed.status).toBe('failed');
    expect(failed.error?.code).toBe('E_MODEL_FAILED');
    expect(failed.error?.message).toMatch(/intermediate\.int_fan_spend: .*no_such_column/);
    expect(byModel(results, 'dim_fan')).toMatchObject({ status: 'skipped', reason: 'parent intermediate.int_fan_spend failed' });
    expect(byModel(results, 'fan_count')).toMatchObject({ status: 'skipped', reason: 'upstream intermediate.int_fan_spend failed (via marts.dim_fan)' });
    // The independent branch was not blocked (unchanged since the first build, so left as it is).
    expect(byModel(results, 'stg_ticketing__users').status).toBe('unchanged');
    // The old table is intact.
    expect(await ws.query('select user_id, spend::double as spend from intermediate.int_fan_spend order by user_id')).toEqual([
      { user_id: 1, spend: 20 },
      { user_id: 2, spend: 30 },
    ]);
  });

  it('reports a model whose build cannot be recorded as failed, and builds it again next time', async () => {
    await ws.exec(RAW_TICKETING);
    // a damaged build-state table: without its primary key, recording a build fails
    await ws.exec('create schema meta; create table meta.build_state (relation varchar, fingerprint varchar, built_at timestamptz, definition varchar, content varchar)');
    await ws.write(PROJECT);
    const results = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });

    const failed = byModel(results, 'stg_ticketing__users');
    expect(failed.status).toBe('failed');
    expect(failed.error?.code).toBe('E_MODEL_FAILED');
    expect(failed.error?.message).toMatch(/staging\.stg_ticketing__users: .*(PRIMARY KEY|ON CONFLICT)/);
    expect(byModel(results, 'dim_fan').status).toBe('skipped');

    // Mended, the next build writes and records every model.
    await ws.exec('drop table meta.build_state');
    expect((await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir })).every((result) => result.status === 'ok')).toBe(true);
  });

  it('switches a model between view and table when its header changes', async () => {
    await ws.exec(RAW_TICKETING);
    await ws.write({ 'staging/ticketing/stg_ticketing__users.sql': STG_USERS });
    const kind = async () => (await ws.query(`select table_type from information_schema.tables where table_name = 'stg_ticketing__users'`))[0]?.table_type;

    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(await kind()).toBe('VIEW');
    await ws.write({ 'staging/ticketing/stg_ticketing__users.sql': `-- materialized: table\n${STG_USERS}` });
    expect((await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir }))[0]).toMatchObject({ materialized: 'table', status: 'ok', rows: 3 });
    expect(await kind()).toBe('BASE TABLE');
    await ws.write({ 'staging/ticketing/stg_ticketing__users.sql': STG_USERS });
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(await kind()).toBe('VIEW');
  });

  it('fails a model whose raw source is missing, naming the model and the table', async () => {
    await ws.exec(RAW_TICKETING);
    await ws.write({
      ...PROJECT,
      'staging/engagement/stg_engagement__people.sql': 'select id as person_id from raw.engagement_people',
      'marts/dim_person.sql': 'select * from staging.stg_engagement__people',
    });

    const results = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });

    const people = byModel(results, 'stg_engagement__people');
    expect(people.status).toBe('failed');
    expect(people.error?.code).toBe('E_MODEL_SOURCE_MISSING');
    expect(people.error?.message).toContain('staging.stg_engagement__people');
    expect(people.error?.message).toContain('raw.engagement_people');
    expect(byModel(results, 'dim_person').status).toBe('skipped');
    expect(byModel(results, 'dim_fan').status).toBe('ok');
  });

  it('builds only the selection: name, +name and name+', async () => {
    await ws.exec(RAW_TICKETING);
    await ws.write(PROJECT);
    const names = (results: ModelResult[]) => results.map((r) => r.model);

    expect(names(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, select: ['stg_ticketing__tickets'] }))).toEqual(['stg_ticketing__tickets']);
    expect(names(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, select: ['+int_fan_spend'] }))).toEqual(['stg_ticketing__tickets', 'int_fan_spend']);
    expect(names(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, select: ['stg_ticketing__users+'] }))).toEqual(['stg_ticketing__users', 'dim_fan']);
    expect(await ws.query('select count(*)::int as n from marts.dim_fan')).toEqual([{ n: 3 }]);
  });

  it('loads seeds before the models that read them', async () => {
    await ws.exec(RAW_TICKETING);
    await ws.write({
      'seeds/ticket_statuses.csv': 'status,is_revenue\npaid,true\nrefunded,false\n',
      'marts/fct_revenue.sql': `select
    tickets.id as ticket_id,
    statuses.is_revenue,
from raw.ticketing_tickets as tickets
inner join seeds.ticket_statuses as statuses
    on tickets.status = statuses.status
`,
    });

    const results = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });

    expect(results.map((r) => [r.schema, r.model, r.materialized, r.status, r.rows])).toEqual([
      ['seeds', 'ticket_statuses', 'seed', 'ok', 2],
      ['marts', 'fct_revenue', 'table', 'ok', 3],
    ]);
    expect(await ws.query('select ticket_id, is_revenue from marts.fct_revenue order by ticket_id')).toEqual([
      { ticket_id: 10, is_revenue: true },
      { ticket_id: 11, is_revenue: false },
      { ticket_id: 12, is_revenue: true },
    ]);
  });

  it('writes lineage.json with materialization, parents and column types', async () => {
    await ws.exec(RAW_TICKETING);
    await ws.write({ ...PROJECT, 'seeds/countries.csv': 'code,name\nNL,Netherlands\n' });

    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, select: ['+dim_fan'] });

    const lineage = JSON.parse(await readFile(join(ws.dataDir, 'lineage.json'), 'utf8')) as Lineage;
    expect(lineage.version).toBe(1);
    expect(lineage.models.map((m) => m.relation)).toEqual([
      'staging.stg_ticketing__tickets',
      'staging.stg_ticketing__users',
      'intermediate.int_fan_spend',
      'marts.dim_fan',
    ]);
    const dimFan = lineage.models.find((m) => m.name === 'dim_fan')!;
    expect(dimFan).toMatchObject({
      schema: 'marts',
      file: 'sql/marts/dim_fan.sql',
      materialized: 'table',
      parents: { models: ['staging.stg_ticketing__users', 'intermediate.int_fan_spend'], seeds: [], sources: [], macros: [] },
      columns: [
        { name: 'fan_id', type: 'INTEGER' },
        { name: 'email', type: 'VARCHAR' },
        { name: 'lifetime_spend', type: 'DECIMAL(38,1)' },
      ],
    });
    expect(lineage.models.find((m) => m.name === 'stg_ticketing__users')).toMatchObject({
      materialized: 'view',
      description: 'One row per ticketing user.',
      parents: { models: [], sources: ['raw.ticketing_users'] },
    });
    expect(lineage.sources.map((s) => s.relation)).toEqual(['raw.ticketing_tickets', 'raw.ticketing_users']);
    expect(lineage.seeds).toEqual([{ relation: 'seeds.countries', columns: [{ name: 'code', type: 'VARCHAR' }, { name: 'name', type: 'VARCHAR' }] }]);
  });
});

describe('incremental models', () => {
  const RAW_EVENTS = `
create schema if not exists raw;
create or replace table raw.events as
    select * from (values
        (1, 'a', timestamptz '2024-05-01 10:00:00+00'),
        (2, 'b', timestamptz '2024-05-01 10:00:00+00'),
        (3, 'c', timestamptz '2024-05-01 10:00:00+00')
    ) as events(id, value, _extracted_at);
`;
  const FCT_EVENTS = `-- materialized: incremental
-- unique_key: event_id
select
    id as event_id,
    upper(value) as value,
    _extracted_at,
    now() as _built_at,
from raw.events
where id > 0
    and _extracted_at > (select coalesce(max(_extracted_at), '-infinity') from marts.fct_events)
`;

  it('builds a first increment whose SQL holds coalesce, case and boolean literals', async () => {
    // DuckDB marks "no location" with the largest uint64, which JSON numbers in JavaScript
    // round; the rewritten first-build SQL must still deserialize.
    await ws.exec(RAW_EVENTS);
    await ws.write({
      'marts/fct_flags.sql': `-- materialized: incremental
-- unique_key: event_id
select
    id as event_id,
    coalesce(value, '?') as value,
    case when value = 'a' then true else false end as is_first,
    _extracted_at,
from raw.events
where _extracted_at > (select coalesce(max(_extracted_at), '-infinity') from marts.fct_flags)
`,
    });
    const [first] = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(first).toMatchObject({ model: 'fct_flags', status: 'ok', rows: 3 });
    expect(await ws.query('select count(*) filter (where is_first)::int as n from marts.fct_flags')).toEqual([{ n: 1 }]);
  });

  it('creates the table on the first build, then merges only new and changed rows by key', async () => {
    await ws.exec(RAW_EVENTS);
    await ws.write({ 'marts/fct_events.sql': FCT_EVENTS });

    const [first] = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(first).toMatchObject({ model: 'fct_events', materialized: 'incremental', status: 'ok', rows: 3 });
    const before = await ws.query('select event_id, value, _built_at::varchar as built from marts.fct_events order by event_id');

    await ws.exec(`
        insert into raw.events values (4, 'd', timestamptz '2024-05-02 10:00:00+00');
        update raw.events set value = 'b2', _extracted_at = timestamptz '2024-05-02 10:00:00+00' where id = 2;
    `);
    const [second] = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });

    // The increment held only the two new versions: the high-water mark filtered the rest.
    expect(second).toMatchObject({ status: 'ok', rows: 2 });
    const after = await ws.query('select event_id, value, _built_at::varchar as built from marts.fct_events order by event_id');
    expect(after.map((row) => [row.event_id, row.value])).toEqual([
      [1, 'A'],
      [2, 'B2'],
      [3, 'C'],
      [4, 'D'],
    ]);
    // Rows 1 and 3 were not rewritten.
    expect(after[0].built).toBe(before[0].built);
    expect(after[2].built).toBe(before[2].built);
    expect(after[1].built).not.toBe(before[1].built);

    const [third] = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    // Nothing new since: the model is left as it is.
    expect(third).toMatchObject({ status: 'unchanged' });
  });

  it('refuses a null key in the increment, which = could never match again, and keeps the table as it was', async () => {
    await ws.exec(RAW_EVENTS);
    await ws.write({ 'marts/fct_events.sql': FCT_EVENTS.replace('id as event_id', 'nullif(id, 4) as event_id') });
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });

    await ws.exec(`insert into raw.events values (4, 'd', timestamptz '2024-05-02 10:00:00+00')`);
    const [nullKey] = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(nullKey.status).toBe('failed');
    expect(nullKey.error?.code).toBe('E_MODEL_INCREMENTAL');
    expect(nullKey.error?.message).toContain('1 row(s) have a null in unique_key (event_id)');
    expect(await ws.query('select event_id::int as id from marts.fct_events order by 1')).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
  });

  it('builds in full when the increment repeats a key, and asks for a full refresh when a parent changes its columns', async () => {
    await ws.exec(RAW_EVENTS);
    await ws.write({ 'marts/fct_events.sql': FCT_EVENTS });
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });

    // Bad raw data repeats a key: no merge can write it, so the model holds what a rebuild
    // would (both rows), for its unique test to report.
    await ws.exec(`insert into raw.events values (5, 'e', timestamptz '2024-05-03 10:00:00+00'), (5, 'f', timestamptz '2024-05-03 11:00:00+00')`);
    const [repeated] = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(repeated).toMatchObject({ status: 'ok', changed: true });
    const rebuilt = await ws.query('select * exclude (_built_at) from marts.fct_events order by all');
    expect(rebuilt.filter((row) => Number(row.event_id) === 5)).toHaveLength(2);
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, fullRefresh: true });
    expect(await ws.query('select * exclude (_built_at) from marts.fct_events order by all')).toEqual(rebuilt);

    // The model's own SQL is the same; what it reads (select *) gained a column.
    await ws.exec('delete from raw.events where id = 5');
    const latest = '-- materialized: incremental\n-- unique_key: id\nselect * from staging.stg_events\n';
    await ws.write({ 'staging/stg_events.sql': 'select id, value, _extracted_at from raw.events\n', 'marts/fct_latest.sql': latest });
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, select: ['+fct_latest'] });
    await ws.write({ 'staging/stg_events.sql': 'select id, value, _extracted_at, 1 as version from raw.events\n' });
    const [changed] = (await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, select: ['+fct_latest'] })).filter((r) => r.model === 'fct_latest');
    expect(changed!.status).toBe('failed');
    expect(changed!.error?.message).toContain('new column(s) version');
    expect(changed!.error?.message).toContain('--full-refresh --select fct_latest');

    const [refreshed] = (await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, fullRefresh: true, select: ['fct_latest'] })).filter((r) => r.model === 'fct_latest');
    expect(refreshed).toMatchObject({ status: 'ok', rows: 3 });
    expect(await ws.query('select count(*)::int as n, min(version) as v from marts.fct_latest')).toEqual([{ n: 3, v: 1 }]);
  });

  it('rebuilds an incremental model in full when its SQL or a seed it reads changed, and merges again after', async () => {
    await ws.exec(RAW_EVENTS);
    await ws.write({ 'seeds/prefixes.csv': 'prefix\nold\n' });
    const withPrefix = (sql: string) => sql.replace('upper(value) as value', "(select max(prefix) from seeds.prefixes) || upper(value) as value");
    await ws.write({ 'marts/fct_events.sql': withPrefix(FCT_EVENTS) });
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(await ws.query('select value from marts.fct_events order by event_id')).toEqual([{ value: 'oldA' }, { value: 'oldB' }, { value: 'oldC' }]);

    // New logic, no new data: a merge would keep every old row (no newer _extracted_at).
    await ws.write({ 'marts/fct_events.sql': withPrefix(FCT_EVENTS).replace('upper(value)', 'lower(value)') });
    const [relogic] = (await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir })).filter((r) => r.model === 'fct_events');
    expect(relogic).toMatchObject({ status: 'ok', rows: 3 });
    expect(await ws.query('select value from marts.fct_events order by event_id')).toEqual([{ value: 'olda' }, { value: 'oldb' }, { value: 'oldc' }]);

    // The rules as data changed: the same.
    await ws.write({ 'seeds/prefixes.csv': 'prefix\nnew\n' });
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(await ws.query('select value from marts.fct_events order by event_id')).toEqual([{ value: 'newa' }, { value: 'newb' }, { value: 'newc' }]);

    // Same definition again: new rows merge, the table is not rebuilt.
    await ws.exec(`insert into raw.events values (4, 'd', timestamptz '2024-05-02 10:00:00+00')`);
    const [merged] = (await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir })).filter((r) => r.model === 'fct_events');
    expect(merged).toMatchObject({ status: 'ok', rows: 1 });
  });

  it('merges by a composite key without a self-reference', async () => {
    await ws.exec(`
        create schema raw;
        create table raw.positions as select * from (values (1, 'a', 10), (1, 'b', 20)) as positions(season_id, fan, points);
    `);
    await ws.write({ 'marts/fct_positions.sql': '-- materialized: incremental\n-- unique_key: season_id, fan\nselect season_id, fan, points from raw.positions\n' });
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });

    await ws.exec(`update raw.positions set points = 25 where fan = 'b'; insert into raw.positions values (2, 'a', 5)`);
    const [result] = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });

    expect(result).toMatchObject({ status: 'ok', rows: 3 });
    expect(await ws.query('select season_id, fan, points from marts.fct_positions order by all')).toEqual([
      { season_id: 1, fan: 'a', points: 10 },
      { season_id: 1, fan: 'b', points: 25 },
      { season_id: 2, fan: 'a', points: 5 },
    ]);
  });

  it('deletes the rows its incremental_delete condition holds before merging, and refuses the key elsewhere', async () => {
    await ws.exec(RAW_EVENTS);
    await ws.write({
      'marts/fct_events.sql': FCT_EVENTS.replace('-- unique_key: event_id\n', '-- unique_key: event_id\n-- incremental_delete: event_id not in (select id from raw.events)\n'),
    });
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    await ws.exec(`delete from raw.events where id = 2; insert into raw.events values (4, 'd', timestamptz '2024-05-02 10:00:00+00')`);
    const [result] = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(result).toMatchObject({ status: 'ok', rows: 1 });
    expect(await ws.query('select event_id, value from marts.fct_events order by all')).toEqual([
      { event_id: 1, value: 'A' },
      { event_id: 3, value: 'C' },
      { event_id: 4, value: 'D' },
    ]);

    await ws.write({ 'marts/fct_events.sql': '-- incremental_delete: id = 1\nselect 1 as id\n' });
    await expect(buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir })).rejects.toThrow('incremental_delete only applies to materialized: incremental');
  });

  it('fails the first build of a model whose unique_key its output lacks, saying so', async () => {
    await ws.write({ 'marts/fct_events.sql': '-- materialized: table\n-- unique_key: event_id\nselect 1 as id\n' });
    const [built] = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(built).toMatchObject({ status: 'failed' });
    expect(built!.error?.message).toContain('unique_key column event_id is not in the model');
  });

  it('writes a model with a unique_key in key order, unless DuckDB writes its rows in order anyway', async () => {
    // a grouping: written in parallel, part-filled row groups unless sorted
    await ws.write({ 'marts/fct_events.sql': '-- materialized: table\n-- unique_key: ID\nselect cast(4 - i as integer) as id from range(3) as r(i) group by i\n' });
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(await ws.query('select id from marts.fct_events')).toEqual([{ id: 2 }, { id: 3 }, { id: 4 }]);
    // a table's scan: a batch insert fills the row groups in the scan's order, and no sort is needed
    await ws.write({
      'marts/event_ids.sql': '-- materialized: table\nselect cast(4 - i as integer) as id from range(3) as r(i)\n',
      'marts/fct_events.sql': '-- materialized: table\n-- unique_key: ID\nselect id from marts.event_ids\n',
    });
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, fullRefresh: true });
    expect(await ws.query('select id from marts.fct_events')).toEqual([{ id: 4 }, { id: 3 }, { id: 2 }]);
  });

  it('stores the columns a compression header names by that method, in full builds and merges alike', async () => {
    // a few distinct values: left to itself, DuckDB stores them as a dictionary
    const events = (to: number) => `select cast(i as integer) as id, 'kind ' || (i % 3) as kind, 'code ' || (i % 3) as code from range(${to}) as r(i)`;
    await ws.write({ 'marts/fct_events.sql': `-- materialized: incremental\n-- unique_key: id\n-- compression: KIND (fsst)\n${events(3000)} where i >= (select count(*) from marts.fct_events)\n` });
    const methods = () => ws.query(`select column_name, list(distinct compression order by compression) as methods from pragma_storage_info('marts.fct_events') where segment_type = 'VARCHAR' group by all order by all`);
    const [first] = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(first).toMatchObject({ status: 'ok', rows: 3000 });
    expect(await methods()).toEqual([
      { column_name: 'code', methods: ['Dictionary'] },
      { column_name: 'kind', methods: ['FSST'] },
    ]);
    // a merge appends rows to the table, which keeps its columns' compression
    await ws.write({ 'marts/fct_events.sql': `-- materialized: incremental\n-- unique_key: id\n-- compression: KIND (fsst)\n${events(6000)} where i >= (select count(*) from marts.fct_events)\n` });
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(await ws.query(`select cast(count(*) as integer) as n, cast(count(distinct kind) as integer) as kinds from marts.fct_events`)).toEqual([{ n: 6000, kinds: 3 }]);
    await ws.exec('checkpoint');
    expect(await methods()).toEqual([
      { column_name: 'code', methods: ['Dictionary'] },
      { column_name: 'kind', methods: ['FSST'] },
    ]);
  });

  it('refuses a compression header on a view, with an unknown method, or naming a column the model lacks', async () => {
    await expectHeaderProblems(
      [
        ['-- materialized: view\n-- compression: id (rle)\nselect 1 as id\n', 'compression applies to a table'],
        ['-- compression: id (zip)\nselect 1 as id\n', 'compression: "id (zip)" is not "column (method)"'],
      ],
      ['-- compression: kind (dictionary)\nselect 1 as id\n', 'compression column kind is not in the model'],
    );
  });

  it('refuses lineage_columns without a unique_key, on a key column, or naming a column the model lacks', async () => {
    await expectHeaderProblems(
      [
        ['-- lineage_columns: _extracted_at\nselect 1 as id, now() as _extracted_at\n', 'lineage_columns applies to a model with a unique_key'],
        ['-- materialized: incremental\n-- unique_key: id\n-- lineage_columns: ID\nselect 1 as id\n', 'lineage_columns: ID is part of the unique_key'],
      ],
      ['-- materialized: table\n-- unique_key: id\n-- lineage_columns: loaded_at\nselect 1 as id\n', 'lineage_columns column loaded_at is not in the model'],
    );
  });
});
