import { beforeAll, describe, expect, it } from 'vitest';
import { discoverProject } from '../../src/models/discover-project.js';
import { rawTables } from '../../src/sources/raw-personal-columns.js';
import { sharedWarehouse } from '../helpers/shared-warehouse.js';
import { queryWarehouse } from '../helpers/warehouse.js';

/**
 * A view's `-- rows_of:` is its author's word that each of its rows is one row of a relation,
 * keyed by an expression: a check then tests only the view's rows whose key changed, and a wrong
 * expression would leave rows untested. Each view of fanlake's own models that says so is held
 * to it on a warehouse the real CLI built: one row per row of the relation, every row's
 * expression a key of it.
 */
let dataDir: string;

beforeAll(async () => {
  dataDir = await sharedWarehouse({ simulator: { scale: 0.02, seed: 42 } });
}, 180_000);

describe('views made of one row per row of a relation (rows_of)', async () => {
  const project = await discoverProject();
  const views = project.models.filter((model) => model.rowsOf !== undefined);

  it('are declared where a check gains by them', () => {
    expect(views.map((view) => view.relation).sort()).toEqual(['marts.fan_identity_links', 'staging.stg_ticketing__tickets']);
  });

  it.each(views.map((view) => [view.relation, view.rowsOf!] as const))('%s: one row per row of its relation, each keyed by its expression', async (relation, { relation: of, expression }) => {
    const model = project.models.find((candidate) => candidate.relation === of);
    const key = model?.uniqueKey ?? rawTables().find((table) => table.relation === of)?.spec.primaryKey;
    expect(key, `${of}: a one-column key`).toHaveLength(1);
    const [counts] = await queryWarehouse(
      dataDir,
      `select
          (select count(*) from ${relation}) as view_rows,
          (select count(*) from ${of}) as relation_rows,
          (select count(*) from (select ${expression} as row_key from ${relation}) as v semi join ${of} as r on r."${key![0]}" = v.row_key) as keyed_rows`,
    );
    expect(Number(counts!.view_rows)).toBeGreaterThan(0);
    expect(counts).toEqual({ view_rows: counts!.relation_rows, relation_rows: counts!.relation_rows, keyed_rows: counts!.relation_rows });
  });
});
