import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildModels } from '../../src/models/index.js';
import { type Workspace, workspace } from './fixtures.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => ws.cleanup());

const statuses = (results: Awaited<ReturnType<typeof buildModels>>) => Object.fromEntries(results.map((r) => [`${r.schema}.${r.model}`, r.status]));
const relations = async () =>
  (
    await ws.query(`
      select schema_name || '.' || table_name as relation from duckdb_tables() where schema_name in ('staging', 'marts')
      union all
      select schema_name || '.' || view_name from duckdb_views() where schema_name in ('staging', 'marts')
      order by 1`)
  ).map((row) => row.relation);

describe('a model removed from the project', () => {
  it('has its table or view dropped by the next build, and nothing else in its schema', async () => {
    await ws.exec(`
      create schema raw;
      create table raw.a as select 1 as id, timestamptz '2024-01-01 00:00:00+00' as _extracted_at;`);
    await ws.write({
      'staging/stg_a.sql': 'select id from raw.a\n',
      'staging/stg_old.sql': 'select id from raw.a where id > 1\n',
      'marts/a_count.sql': '-- materialized: table\nselect count(*) as n from staging.stg_a\n',
      'marts/old_count.sql': '-- materialized: table\nselect count(*) as n from staging.stg_a\n',
    });
    const build = async () => statuses(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir }));
    await build();
    // an analyst's own table beside the models: no build made it, so none drops it
    await ws.exec('create table marts.my_notes as select 1 as note');
    expect(await relations()).toEqual(['marts.a_count', 'marts.my_notes', 'marts.old_count', 'staging.stg_a', 'staging.stg_old']);

    await ws.remove('marts/old_count.sql');
    await ws.remove('staging/stg_old.sql');
    expect(await build()).toEqual({ 'marts.old_count': 'dropped', 'staging.stg_old': 'dropped', 'staging.stg_a': 'unchanged', 'marts.a_count': 'unchanged' });
    expect(await relations()).toEqual(['marts.a_count', 'marts.my_notes', 'staging.stg_a']);
    expect(await ws.query(`select relation from meta.build_state order by relation`)).toEqual([{ relation: 'marts.a_count' }, { relation: 'staging.stg_a' }]);

    // told once: the next build has nothing more to drop
    expect(await build()).toEqual({ 'staging.stg_a': 'unchanged', 'marts.a_count': 'unchanged' });

    // a model that comes back is built again, as new
    await ws.write({ 'marts/old_count.sql': '-- materialized: table\nselect count(*) as n from staging.stg_a\n' });
    expect((await build())['marts.old_count']).toBe('ok');
  });

  it('whose table someone dropped by hand is forgotten without an error', async () => {
    await ws.exec(`
      create schema raw;
      create table raw.a as select 1 as id, timestamptz '2024-01-01 00:00:00+00' as _extracted_at;`);
    await ws.write({ 'staging/stg_a.sql': 'select id from raw.a\n', 'marts/old_count.sql': '-- materialized: table\nselect count(*) as n from staging.stg_a\n' });
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    await ws.exec('drop table marts.old_count');
    await ws.remove('marts/old_count.sql');
    expect(statuses(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir }))).toEqual({ 'staging.stg_a': 'unchanged' });
    expect(await ws.query(`select relation from meta.build_state`)).toEqual([{ relation: 'staging.stg_a' }]);
  });
});
