// Whether two warehouses built from the same data hold the same identity results: the pairs, the
// fans (every column of the clusters, and fan_id per record_key), the edges, the ambiguous links,
// the records and the statistics the model version froze. A change meant to make the build
// cheaper must leave all of them as they were: build one copy of a loaded (and trained) data dir
// with each version, then compare. Each table is compared both ways with EXCEPT ALL, so a row
// repeated in one only counts too. Exits 1 when any differs.
// Usage: node bench/identity-same-results.mjs <data dir a> <data dir b>
import { DuckDBInstance } from '@duckdb/node-api';
import { join, resolve } from 'node:path';

const [a, b] = process.argv.slice(2);
if (!a || !b) {
  console.error('usage: node bench/identity-same-results.mjs <data dir a> <data dir b>');
  process.exit(2);
}

// changed_at (a lineage column: when a build computed the row) differs between any two builds
const COMPARED = [
  ['intermediate.int_identity_pairs', '*'],
  ['intermediate.int_identity_clusters', '* exclude (changed_at)'],
  ['intermediate.int_identity_clusters', 'record_key, fan_id'],
  ['intermediate.int_identity_edges', '*'],
  ['intermediate.int_identity_ambiguous_links', '*'],
  ['intermediate.int_identity_records', '* exclude (changed_at)'],
  ['meta.identity_model_crowded_blocks', '*'],
  ['meta.identity_model_term_frequencies', '*'],
];

const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
const count = async (sql) => Number((await connection.runAndReadAll(sql)).getRows()[0][0]);
let differing = 0;
try {
  await connection.run(`attach '${join(resolve(a), 'warehouse.duckdb')}' as a (read_only)`);
  await connection.run(`attach '${join(resolve(b), 'warehouse.duckdb')}' as b (read_only)`);
  for (const [table, columns] of COMPARED) {
    const minus = (x, y) => count(`select count(*) from (select ${columns} from ${x}.${table} except all select ${columns} from ${y}.${table})`);
    const [aOnly, bOnly] = [await minus('a', 'b'), await minus('b', 'a')];
    if (aOnly > 0 || bOnly > 0) differing++;
    console.log(`${table} (${columns}): ${await count(`select count(*) from a.${table}`)} rows; only in a ${aOnly}, only in b ${bOnly}${aOnly > 0 || bOnly > 0 ? ': DIFFERENT' : ''}`);
  }
} finally {
  connection.closeSync();
  instance.closeSync();
}
console.log(differing === 0 ? 'the same results' : `${differing} of ${COMPARED.length} comparisons differ`);
process.exit(differing === 0 ? 0 : 1);
