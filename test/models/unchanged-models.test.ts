import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildModels } from '../../src/models/index.js';
import { type Workspace, workspace, statuses } from './fixtures.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => ws.cleanup());

const PROJECT = {
  'staging/stg_a.sql': 'select id, _extracted_at from raw.a\n',
  'staging/stg_b.sql': 'select id from raw.b\n',
  'marts/a_count.sql': '-- materialized: table\nselect count(*) as n from staging.stg_a\n',
  'marts/b_count.sql': '-- materialized: table\nselect count(*) as n from staging.stg_b\n',
};

describe('models whose SQL and inputs did not change', () => {
  it('are left as they are; a change of data or SQL rebuilds the model and its descendants only', async () => {
    await ws.exec(`
      create schema raw;
      create table raw.a as select 1 as id, timestamptz '2024-01-01 00:00:00+00' as _extracted_at;
      create table raw.b as select 1 as id, timestamptz '2024-01-01 00:00:00+00' as _extracted_at;`);
    await ws.write(PROJECT);
    expect(statuses(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir }))).toEqual({ stg_a: 'ok', stg_b: 'ok', a_count: 'ok', b_count: 'ok' });
    expect(statuses(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir }))).toEqual({ stg_a: 'unchanged', stg_b: 'unchanged', a_count: 'unchanged', b_count: 'unchanged' });

    // A load adds rows to raw.a: only a's branch is rebuilt, and sees them.
    await ws.exec(`insert into raw.a values (2, timestamptz '2024-01-02 00:00:00+00')`);
    expect(statuses(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir }))).toEqual({ stg_a: 'ok', stg_b: 'unchanged', a_count: 'ok', b_count: 'unchanged' });
    expect(await ws.query('select n::int as n from marts.a_count')).toEqual([{ n: 2 }]);

    // A changed model is rebuilt with its descendants.
    await ws.write({ 'staging/stg_b.sql': 'select id from raw.b where id > 0\n' });
    expect(statuses(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir }))).toEqual({ stg_a: 'unchanged', stg_b: 'ok', a_count: 'unchanged', b_count: 'ok' });

    // --full-refresh rebuilds everything; a dropped table is rebuilt too.
    expect(Object.values(statuses(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, fullRefresh: true })))).toEqual(['ok', 'ok', 'ok', 'ok']);
    await ws.exec('drop table marts.b_count');
    expect(statuses(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir })).b_count).toBe('ok');
  });

  it('leaves the children of a table rebuilt to the same rows as they are, and rebuilds them when its rows change', async () => {
    await ws.exec(`
      create schema raw;
      create table raw.people as select 1 as id, 'Oslo' as city, timestamptz '2024-01-01 00:00:00+00' as _extracted_at;`);
    await ws.write({
      'staging/stg_people.sql': 'select id, city, _extracted_at from raw.people\n',
      'intermediate/int_cities.sql': '-- materialized: table\nselect distinct city from staging.stg_people\n',
      'marts/city_count.sql': '-- materialized: table\nselect count(*) as n from intermediate.int_cities\n',
    });
    const build = async (select?: string[]) => statuses(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, ...(select ? { select } : {}) }));
    expect(await build()).toEqual({ stg_people: 'ok', int_cities: 'ok', city_count: 'ok' });

    // A second person in the same city: int_cities is rebuilt to the same rows, so city_count is not.
    await ws.exec(`insert into raw.people values (2, 'Oslo', timestamptz '2024-01-02 00:00:00+00')`);
    expect(await build()).toEqual({ stg_people: 'ok', int_cities: 'ok', city_count: 'unchanged' });

    // A new city: both are rebuilt.
    await ws.exec(`insert into raw.people values (3, 'Bergen', timestamptz '2024-01-03 00:00:00+00')`);
    expect(await build()).toEqual({ stg_people: 'ok', int_cities: 'ok', city_count: 'ok' });
    expect(await ws.query('select n::int as n from marts.city_count')).toEqual([{ n: 2 }]);

    // Building only the child while its parent is stale reads the parent as it stands, so the
    // next full build, which brings the parent up to date, rebuilds the child too.
    await ws.exec(`insert into raw.people values (4, 'Tromsø', timestamptz '2024-01-04 00:00:00+00')`);
    expect(await build(['city_count'])).toEqual({ city_count: 'unchanged' });
    expect(await build()).toEqual({ stg_people: 'ok', int_cities: 'ok', city_count: 'ok' });
    expect(await ws.query('select n::int as n from marts.city_count')).toEqual([{ n: 3 }]);
  });

  it('leaves the children of an incremental model as they are when its merge changed no row', async () => {
    await ws.exec(`
      create schema raw;
      create table raw.people as select 1 as id, 'Oslo' as city, 'first' as note, timestamptz '2024-01-01 00:00:00+00' as _extracted_at;`);
    await ws.write({
      'staging/stg_people.sql': 'select id, city, note, _extracted_at from raw.people\n',
      'intermediate/int_person_cities.sql': '-- materialized: incremental\n-- unique_key: id\n-- incremental_delete: id not in (select id from staging.stg_people)\nselect id, city from staging.stg_people\n',
      'marts/city_people.sql': "-- materialized: table\nselect count(*) filter (where city = 'Bergen') as n from intermediate.int_person_cities\n",
    });
    const build = async () => statuses(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir }));
    expect(await build()).toEqual({ stg_people: 'ok', int_person_cities: 'ok', city_people: 'ok' });

    // A column the incremental model does not read changed: it merges the same rows, changing none.
    await ws.exec(`update raw.people set note = 'second', _extracted_at = timestamptz '2024-01-02 00:00:00+00'`);
    expect(await build()).toEqual({ stg_people: 'ok', int_person_cities: 'ok', city_people: 'unchanged' });

    // The city changed: the merge updates a row, so its children rebuild and see it.
    await ws.exec(`update raw.people set city = 'Bergen', _extracted_at = timestamptz '2024-01-03 00:00:00+00'`);
    expect(await build()).toEqual({ stg_people: 'ok', int_person_cities: 'ok', city_people: 'ok' });
    expect(await ws.query('select n::int as n from marts.city_people')).toEqual([{ n: 1 }]);

    // The person is gone: a merge that only deletes changed the table too.
    await ws.exec(`insert into raw.people values (2, 'Oslo', 'first', timestamptz '2024-01-04 00:00:00+00')`);
    expect(await build()).toEqual({ stg_people: 'ok', int_person_cities: 'ok', city_people: 'ok' });
    await ws.exec(`delete from raw.people where id = 1; update raw.people set _extracted_at = timestamptz '2024-01-05 00:00:00+00'`);
    expect(await build()).toEqual({ stg_people: 'ok', int_person_cities: 'ok', city_people: 'ok' });
    expect(await ws.query('select n::int as n from marts.city_people')).toEqual([{ n: 0 }]);
  });

  it('writes rows that differ only in lineage_columns, as a rebuild would, without rebuilding the children', async () => {
    await ws.exec(`
      create schema raw;
      create table raw.tickets as select * from (values (1, 'Paid', timestamptz '2024-01-01 00:00:00+00'), (2, 'Paid', timestamptz '2024-01-01 00:00:00+00')) as t(id, status, _extracted_at);`);
    await ws.write({
      'staging/stg_tickets.sql': 'select id, status, _extracted_at from raw.tickets\n',
      'marts/fct_paid.sql':
        "-- materialized: incremental\n-- unique_key: id\n-- lineage_columns: _extracted_at\nselect id, status, _extracted_at from staging.stg_tickets\nwhere _extracted_at > (select greatest(max(_extracted_at), '-infinity'::timestamptz) from marts.fct_paid)\n",
      'marts/paid_count.sql': "-- materialized: table\nselect count(*) filter (where status = 'Paid') as n from marts.fct_paid\n",
    });
    const build = async () => buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    const stored = () => ws.query("select id::int as id, status, strftime(_extracted_at at time zone 'UTC', '%Y-%m-%d') as extracted from marts.fct_paid order by id");
    expect(statuses(await build())).toEqual({ stg_tickets: 'ok', fct_paid: 'ok', paid_count: 'ok' });
    const lineage = JSON.parse(await readFile(join(ws.dataDir, 'lineage.json'), 'utf8')) as { models: { name: string; lineageColumns?: string[] }[] };
    expect(lineage.models.find((model) => model.name === 'fct_paid')?.lineageColumns).toEqual(['_extracted_at']);

    // A re-read of an unchanged ticket (a lookback window) brings only a newer _extracted_at:
    // the row is written, so the high-water mark moves on, but nothing after it rebuilds.
    await ws.exec(`update raw.tickets set _extracted_at = timestamptz '2024-01-02 00:00:00+00' where id = 1`);
    const reread = await build();
    expect(statuses(reread)).toEqual({ stg_tickets: 'ok', fct_paid: 'ok', paid_count: 'unchanged' });
    expect(reread.find((result) => result.model === 'fct_paid')).toMatchObject({ rows: 1, changed: false });
    expect(await stored()).toEqual([
      { id: 1, status: 'Paid', extracted: '2024-01-02' },
      { id: 2, status: 'Paid', extracted: '2024-01-01' },
    ]);

    // A real change along with a lineage-only one: the children rebuild and see it.
    await ws.exec(`update raw.tickets set status = 'Refunded', _extracted_at = timestamptz '2024-01-03 00:00:00+00' where id = 2`);
    expect(statuses(await build())).toEqual({ stg_tickets: 'ok', fct_paid: 'ok', paid_count: 'ok' });
    expect(await ws.query('select n::int as n from marts.paid_count')).toEqual([{ n: 1 }]);

    // The table is what a rebuild makes of the same raw rows.
    const incremental = await stored();
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, fullRefresh: true });
    expect(await stored()).toEqual(incremental);
  });

  it('builds an incremental model in full when a parent named in full_rebuild_on changed, and merges otherwise', async () => {
    await ws.exec(`
      create schema raw;
      create table raw.sales as select * from (values (1, 'a', 10, timestamptz '2024-01-01 00:00:00+00'), (2, 'b', 20, timestamptz '2024-01-01 00:00:00+00')) as t(id, shop, amount, _extracted_at);
      create table raw.shops as select * from (values ('a', 'Oslo', timestamptz '2024-01-01 00:00:00+00'), ('b', 'Bergen', timestamptz '2024-01-01 00:00:00+00')) as t(shop, city, _extracted_at);`);
    await ws.write({
      'staging/stg_sales.sql': 'select id, shop, amount, _extracted_at from raw.sales\n',
      'staging/stg_shops.sql': 'select shop, city, _extracted_at from raw.shops\n',
      // the increment follows the sales alone: a shop that moves changes rows no sale brings
      'marts/fct_sales.sql':
        "-- materialized: incremental\n-- unique_key: id\n-- full_rebuild_on: staging.stg_shops\nselect sales.id, sales.amount, shops.city, sales._extracted_at from staging.stg_sales as sales join staging.stg_shops as shops on shops.shop = sales.shop\nwhere sales._extracted_at > (select greatest(max(_extracted_at), '-infinity'::timestamptz) from marts.fct_sales)\n",
    });
    const build = async () => (await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir })).find((result) => result.model === 'fct_sales');
    const cities = () => ws.query('select id::int as id, city from marts.fct_sales order by id');
    expect(await build()).toMatchObject({ status: 'ok', rows: 2 });

    // A new sale: merged, the increment is that sale alone.
    await ws.exec(`insert into raw.sales values (3, 'a', 30, timestamptz '2024-01-02 00:00:00+00')`);
    expect(await build()).toMatchObject({ status: 'ok', rows: 1 });

    // A shop moves: every row is built again, as a rebuild would leave them.
    await ws.exec(`update raw.shops set city = 'Trondheim', _extracted_at = timestamptz '2024-01-03 00:00:00+00' where shop = 'a'`);
    expect(await build()).toMatchObject({ status: 'ok', rows: 3 });
    expect(await cities()).toEqual([{ id: 1, city: 'Trondheim' }, { id: 2, city: 'Bergen' }, { id: 3, city: 'Trondheim' }]);
  });

  it('refuses full_rebuild_on on a model that is not incremental, or naming a relation it does not read', async () => {
    await ws.exec(`create schema raw; create table raw.sales as select 1 as id, timestamptz '2024-01-01 00:00:00+00' as _extracted_at;`);
    await ws.write({
      'staging/stg_sales.sql': 'select id, _extracted_at from raw.sales\n',
      'marts/sales_table.sql': '-- materialized: table\n-- full_rebuild_on: staging.stg_sales\nselect id from staging.stg_sales\n',
      'marts/sales_merged.sql': '-- materialized: incremental\n-- unique_key: id\n-- full_rebuild_on: staging.stg_shops\nselect id from staging.stg_sales\n',
    });
    await expect(buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir })).rejects.toThrow(/sales_table.sql: full_rebuild_on only applies to materialized: incremental/);
    await ws.write({ 'marts/sales_table.sql': '-- materialized: table\nselect id from staging.stg_sales\n' });
    await expect(buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir })).rejects.toThrow(/sales_merged.sql: full_rebuild_on names staging\.stg_shops, which the model does not read/);
  });

  it('writes a table with a unique_key as the difference: a rebuild of the same rows changes nothing, and the table ends as a rebuild leaves it', async () => {
    await ws.exec(`
      create schema raw;
      create table raw.people as select * from (values (1, 'Oslo', 'first'), (2, 'Bergen', 'first')) as people(id, city, note);
      alter table raw.people add column _extracted_at timestamptz default timestamptz '2024-01-01 00:00:00+00';`);
    await ws.write({
      'staging/stg_people.sql': 'select id, city, note, _extracted_at from raw.people\n',
      'intermediate/int_person_cities.sql': '-- materialized: table\n-- unique_key: id\nselect id, city from staging.stg_people\n',
      'marts/city_people.sql': "-- materialized: table\nselect count(*) filter (where city = 'Bergen') as n from intermediate.int_person_cities\n",
    });
    const build = async () => statuses(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir }));
    const rows = () => ws.query('select id::int as id, city from intermediate.int_person_cities order by id');
    expect(await build()).toEqual({ stg_people: 'ok', int_person_cities: 'ok', city_people: 'ok' });

    // Only a column the table does not hold changed: every row is computed again, none written
    // (the merge says so: no sum of the rows was needed).
    await ws.exec(`update raw.people set note = 'second', _extracted_at = timestamptz '2024-01-02 00:00:00+00'`);
    const unchanged = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(statuses(unchanged)).toEqual({ stg_people: 'ok', int_person_cities: 'ok', city_people: 'unchanged' });
    expect(unchanged.find((result) => result.model === 'int_person_cities')).toMatchObject({ rows: 2, changed: false });

    // A changed city, a person gone and one new, in one build: updated, deleted and inserted.
    await ws.exec(`
      update raw.people set city = 'Bergen' where id = 1;
      delete from raw.people where id = 2;
      insert into raw.people values (3, 'Tromsø', 'first', timestamptz '2024-01-03 00:00:00+00');
      update raw.people set _extracted_at = timestamptz '2024-01-03 00:00:00+00';`);
    expect(await build()).toEqual({ stg_people: 'ok', int_person_cities: 'ok', city_people: 'ok' });
    expect(await rows()).toEqual([
      { id: 1, city: 'Bergen' },
      { id: 3, city: 'Tromsø' },
    ]);

    // A person without an id: a null key meets null, so the next build leaves that row as it is.
    await ws.exec(`insert into raw.people values (null, 'Oslo', 'first', timestamptz '2024-01-03 12:00:00+00')`);
    expect(await build()).toEqual({ stg_people: 'ok', int_person_cities: 'ok', city_people: 'ok' });
    await ws.exec(`update raw.people set note = 'third', _extracted_at = timestamptz '2024-01-03 13:00:00+00' where id is null`);
    const nullKept = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(nullKept.find((result) => result.model === 'int_person_cities')).toMatchObject({ status: 'ok', changed: false });
    await ws.exec('delete from raw.people where id is null');
    expect(await build()).toEqual({ stg_people: 'ok', int_person_cities: 'ok', city_people: 'ok' });
    expect(await rows()).toEqual([
      { id: 1, city: 'Bergen' },
      { id: 3, city: 'Tromsø' },
    ]);
    expect(await ws.query('select n::int as n from marts.city_people')).toEqual([{ n: 1 }]);

    // A new column (the model's SQL changed) replaces the table in full.
    await ws.write({ 'intermediate/int_person_cities.sql': '-- materialized: table\n-- unique_key: id\nselect id, city, note from staging.stg_people\n' });
    expect(await build()).toEqual({ stg_people: 'unchanged', int_person_cities: 'ok', city_people: 'ok' });
    expect(await ws.query('select id::int as id, note from intermediate.int_person_cities order by id')).toEqual([
      { id: 1, note: 'second' },
      { id: 3, note: 'first' },
    ]);

    // A key that repeats (bad raw data) cannot be merged: the table is written in full, with
    // both rows, as a table without a unique_key would be, for its data tests to report.
    await ws.exec(`insert into raw.people values (3, 'Bodø', 'first', timestamptz '2024-01-04 00:00:00+00')`);
    const repeated = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(repeated.map((result) => result.error?.message ?? '').join('')).toBe('');
    expect(statuses(repeated)).toEqual({ stg_people: 'ok', int_person_cities: 'ok', city_people: 'ok' });
    expect(await ws.query('select id::int as id, note from intermediate.int_person_cities order by id, note')).toEqual([
      { id: 1, note: 'second' },
      { id: 3, note: 'first' },
      { id: 3, note: 'first' },
    ]);
  });
  it('writes a keyed table whose lineage columns alone changed as a rebuild would, and tells its children nothing changed', async () => {
    await ws.exec(`
      create schema raw;
      create table raw.people as select * from (values (1, 'Oslo', timestamptz '2024-01-01 00:00:00+00'), (2, 'Bergen', timestamptz '2024-01-01 00:00:00+00')) as people(id, city, _extracted_at);`);
    await ws.write({
      'staging/stg_people.sql': 'select id, city, _extracted_at from raw.people\n',
      'intermediate/int_person_cities.sql': '-- materialized: table\n-- unique_key: id\n-- lineage_columns: _extracted_at\nselect id, city, _extracted_at from staging.stg_people\n',
      'marts/city_people.sql': "-- materialized: table\nselect count(*) filter (where city = 'Bergen') as n from intermediate.int_person_cities\n",
    });
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    const rows = () => ws.query('select id::int as id, city, _extracted_at::varchar as at from intermediate.int_person_cities order by id');

    await ws.exec(`update raw.people set _extracted_at = timestamptz '2024-01-02 00:00:00+00' where id = 2`);
    const lineageOnly = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(statuses(lineageOnly)).toEqual({ stg_people: 'ok', int_person_cities: 'ok', city_people: 'unchanged' });
    expect(lineageOnly.find((result) => result.model === 'int_person_cities')).toMatchObject({ changed: false });
    expect(await rows()).toEqual([
      { id: 1, city: 'Oslo', at: '2024-01-01 00:00:00+00' },
      { id: 2, city: 'Bergen', at: '2024-01-02 00:00:00+00' },
    ]);

    await ws.exec(`update raw.people set city = 'Bergen', _extracted_at = timestamptz '2024-01-03 00:00:00+00' where id = 1`);
    const changed = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(statuses(changed)).toEqual({ stg_people: 'ok', int_person_cities: 'ok', city_people: 'ok' });
    expect(await ws.query('select n::int as n from marts.city_people')).toEqual([{ n: 2 }]);
  });
});
