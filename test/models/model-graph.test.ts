import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { loadModelGraph } from '../../src/models/build-models.js';
import { discoverProject } from '../../src/models/discover-project.js';
import { ModelProjectError } from '../../src/models/model-errors.js';
import { selectModels } from '../../src/models/select-models.js';
import { workspace } from './fixtures.js';
import type { Workspace } from './fixtures.js';

let ws: Workspace;

beforeEach(async () => {
  ws = await workspace();
});

afterEach(async () => {
  await ws.cleanup();
});

async function problemsOf(promise: Promise<unknown>): Promise<readonly string[]> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ModelProjectError);
  expect((error as ModelProjectError).code).toBe('E_MODEL_PROJECT');
  return (error as ModelProjectError).problems;
}

describe('model graph', () => {
  it('learns parents from the SQL, ignoring CTE names and table functions', async () => {
    await ws.write({
      'staging/ticketing/stg_ticketing__users.sql': 'select * from raw.ticketing_users',
      'seeds/countries.csv': 'code\nNL\n',
      'marts/dim_fan.sql': `with users as (
    select * from staging.stg_ticketing__users
),

countries as (
    select * from seeds.countries
),

extra as (
    select * from read_parquet('nowhere.parquet')
)

select * from users cross join countries
where exists (select 1 from users as inner_users)
`,
    });

    const graph = await loadModelGraph(ws.modelsDir);

    expect(graph.order).toEqual(['seeds.countries', 'staging.stg_ticketing__users', 'marts.dim_fan']);
    expect(graph.nodes.get('marts.dim_fan')).toMatchObject({ parents: ['staging.stg_ticketing__users', 'seeds.countries'], sources: [] });
    expect(graph.nodes.get('staging.stg_ticketing__users')).toMatchObject({ parents: [], sources: ['raw.ticketing_users'] });
  });

  it('names every file of a cycle', async () => {
    await ws.write({
      'intermediate/int_a.sql': 'select * from intermediate.int_b',
      'intermediate/int_b.sql': 'select * from marts.mart_c',
      'marts/mart_c.sql': 'select * from intermediate.int_a',
      'marts/mart_ok.sql': 'select 1 as one',
    });

    const [problem] = await problemsOf(loadModelGraph(ws.modelsDir));

    expect(problem).toMatch(/cycle/);
    for (const file of ['sql/intermediate/int_a.sql', 'sql/intermediate/int_b.sql', 'sql/marts/mart_c.sql']) expect(problem).toContain(file);
    expect(problem).not.toContain('mart_ok');
  });

  it('reports a missing model, an unqualified name, a foreign schema and a syntax error, all at once', async () => {
    await ws.write({
      'staging/ticketing/stg_ticketing__users.sql': 'select * from raw.ticketing_users',
      'marts/dim_fan.sql': 'select * from staging.stg_ticketing__user',
      'marts/dim_bare.sql': 'select * from stg_ticketing__users',
      'marts/dim_other.sql': 'select * from main.something',
      'marts/dim_broken.sql': 'select from where',
    });

    const problems = await problemsOf(loadModelGraph(ws.modelsDir));

    expect(problems).toHaveLength(4);
    expect(problems).toContainEqual(expect.stringMatching(/^sql\/marts\/dim_fan\.sql: reads staging\.stg_ticketing__user, which is no model or seed \(did you mean staging\.stg_ticketing__users\?\)/));
    expect(problems).toContainEqual(expect.stringMatching(/^sql\/marts\/dim_bare\.sql: "stg_ticketing__users" is not schema-qualified \(did you mean staging\.stg_ticketing__users\?\)/));
    expect(problems).toContainEqual(expect.stringMatching(/^sql\/marts\/dim_other\.sql: reads main\.something; models may read only/));
    expect(problems).toContainEqual(expect.stringMatching(/^sql\/marts\/dim_broken\.sql: syntax error at or near "where" \(line 1\)/));
  });

  it('rejects more than one statement, non-SELECT statements and self-references outside incremental WHERE conditions', async () => {
    await ws.write({
      'marts/two.sql': 'select 1;\nselect 2;\n',
      'marts/ddl.sql': 'create table marts.x as select 1',
      'marts/loop.sql': 'select * from marts.loop',
      'marts/inc_from.sql': '-- materialized: incremental\n-- unique_key: id\nselect * from marts.inc_from',
    });

    const problems = await problemsOf(loadModelGraph(ws.modelsDir));

    expect(problems).toEqual([
      'sql/marts/ddl.sql: a model must be a single SELECT statement (CTEs welcome)',
      'sql/marts/inc_from.sql: reads itself outside a WHERE condition; an incremental model may read marts.inc_from only in AND-ed WHERE conditions',
      'sql/marts/loop.sql: reads itself (marts.loop); only an incremental model may, in a WHERE condition',
      'sql/marts/two.sql: a model must be a single SELECT statement; found 2',
    ]);
  });

  it('rewrites a self-referencing incremental model for its first build, keeping the other conditions', async () => {
    await ws.write({
      'marts/fct_events.sql': `-- materialized: incremental
-- unique_key: id
select id from raw.events
where id > 0 and _extracted_at > (select max(_extracted_at) from marts.fct_events) and id < 100
`,
    });

    const graph = await loadModelGraph(ws.modelsDir);
    const node = graph.nodes.get('marts.fct_events');

    expect(node).toMatchObject({ parents: [], sources: ['raw.events'] });
    expect(node?.kind === 'model' && node.firstBuildSql).toBe('SELECT id FROM raw.events WHERE ((id > 0) AND (id < 100))');
  });

  it('reports header mistakes and duplicate names before parsing', async () => {
    await ws.write({
      'staging/a/stg_a__x.sql': '-- materialised: table\nselect 1',
      'intermediate/int_y.sql': '-- materialized: incremental\nselect 1',
      'marts/stg_a__x.sql': '-- Grain: one row per x.\n-- test: uniq(id)\nselect 1',
      'marts/Bad-Name.sql': 'select 1',
      'marts/late.sql': 'select 1 as id\n-- test: unique(id)\n',
      'staging/b/stg_b__keyed.sql': '-- unique_key: id\nselect 1 as id',
      'marts/hinted_view.sql': '-- materialized: view\n-- not materialized here is a comment\nwith x as not materialized (select 1 as id) select * from x, x as y',
      'marts/hinted_table.sql': '-- materialized: table\nwith x as not materialized (select 1 as id) select * from x, x as y',
    });

    const problems = await problemsOf(discoverProject(ws.modelsDir));

    expect(problems).toEqual([
      'sql/staging/a/stg_a__x.sql: unknown header key "materialised" (did you mean "materialized"?)',
      'sql/staging/b/stg_b__keyed.sql: unique_key applies to materialized: incremental or table; give the model one of those',
      'sql/intermediate/int_y.sql: materialized: incremental needs a "-- unique_key: column[, column]" line',
      `sql/marts/Bad-Name.sql: a model's file name is its table name: use lowercase letters, digits and _`,
      'sql/marts/hinted_view.sql: a view does not keep "not materialized" (DuckDB stores a view\'s SQL without it, and copies a CTE read twice): read the table directly where the CTE is read twice',
      'sql/marts/late.sql: "-- test:" comes after the SQL has started and would be ignored; move it into the leading comment block',
      'sql/marts/stg_a__x.sql: test: unknown test kind "uniq"; kinds: unique, not_null, relationships, accepted_values',
      'sql/marts/stg_a__x.sql: the name "stg_a__x" is also used by sql/staging/a/stg_a__x.sql; names must be unique',
    ]);
  });
});

describe('selectModels', () => {
  it('resolves +name+, qualified names and unions; unknown names are usage errors with close matches', async () => {
    await ws.write({
      'staging/t/stg_t__a.sql': 'select 1 as id',
      'staging/t/stg_t__b.sql': 'select 1 as id',
      'intermediate/int_ab.sql': 'select * from staging.stg_t__a, staging.stg_t__b',
      'marts/mart_ab.sql': 'select * from intermediate.int_ab',
      'marts/mart_b.sql': 'select * from staging.stg_t__b',
    });
    const graph = await loadModelGraph(ws.modelsDir);

    expect(selectModels(graph)).toHaveLength(5);
    expect(selectModels(graph, ['+int_ab+'])).toEqual(['staging.stg_t__a', 'staging.stg_t__b', 'intermediate.int_ab', 'marts.mart_ab']);
    expect(selectModels(graph, ['stg_t__b+'])).toEqual(['staging.stg_t__b', 'intermediate.int_ab', 'marts.mart_ab', 'marts.mart_b']);
    expect(selectModels(graph, ['marts.mart_b', 'stg_t__a'])).toEqual(['staging.stg_t__a', 'marts.mart_b']);

    expect(() => selectModels(graph, ['int_abc'])).toThrow(UsageError);
    expect(() => selectModels(graph, ['int_abc'])).toThrow('no model or seed named "int_abc"; did you mean int_ab?');
    expect(() => selectModels(graph, ['++x'])).toThrow(UsageError);
  });
});
