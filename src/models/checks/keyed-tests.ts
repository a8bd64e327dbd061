import { quoteIdent } from '../../core/duckdb.js';
import { RUN_ID_COLUMN } from '../../raw-contract/index.js';
import { customTestImport } from '../discover-project.js';
import type { ModelChanges } from '../../warehouse/changed-keys.js';
import type { TestInputs } from './check-state.js';
import { changedKeys, type KeyColumns, type LastPass, type Loads, runsAfter, sinceOf, tableOf } from './delta-tests.js';
import type { PlannedTest } from './plan-tests.js';

/**
 * Custom tests of the keys that changed. A custom test that declares the key of each relation
 * it reads (`-- key: <schema.table> <expression>`) says each of its failing rows rests only on
 * the rows of one key: after a pass, a row can newly fail only for a key whose rows changed
 * since. The check gathers those keys from every relation's writes since the pass (a model's
 * changed keys, removed ones among them; a raw table's rows of the loads since), reads only
 * their rows of each relation, and so finds the failing rows a run over whole tables finds.
 */

const CHANGED = '_fanlake_changed_keys';

/**
 * The query of `test`'s failing rows among the keys changed since its last pass, or undefined
 * when it must read whole tables: it declares no keys, or not one for each relation it reads;
 * it calls a macro (which may read more); it never passed or its definition changed since; or a
 * relation it reads changed in a way that does not say which keys (written in full, a view or
 * seed that changed, a raw table an erasure wrote, whose deleted keys no run holds).
 */
export function changedKeysSql(
  test: PlannedTest,
  current: TestInputs,
  pass: LastPass | undefined,
  states: ReadonlyMap<string, string>,
  changes: ReadonlyMap<string, ModelChanges>,
  keyColumns: KeyColumns,
  loads: Loads | undefined,
): string | undefined {
  if (test.keys === undefined || !('sql' in test) || current.callsMacros || pass === undefined || pass.definition !== current.definition) return undefined;
  const declared = new Map(test.keys.map((key) => [key.relation, key.expression]));
  if (current.reads.length === 0 || current.reads.some((relation) => !declared.has(relation))) return undefined;
  const since = sinceOf(pass, states, changes, keyColumns, loads);
  const changed: string[] = [];
  for (const relation of current.reads) {
    const expression = declared.get(relation)!;
    const change = since(relation);
    if (change.kind === 'whole') return undefined;
    if (change.kind === 'keys') {
      changed.push(`select ${expression} as _fanlake_key from ${changedKeys(relation, change.after, keyColumns.get(relation)!)} as changed`);
    } else if (change.kind === 'runs') {
      // only loads since the pass: they replace rows by key and never remove one
      changed.push(`select ${expression} as _fanlake_key from ${tableOf(relation)} as t semi join ${runsAfter(relation, change.after, loads!)} as k on k.run_id = t.${quoteIdent(RUN_ID_COLUMN)}`);
    }
  }
  if (changed.length === 0) return `select * from (\n${test.sql}\n) as failing\nwhere false`;
  let body = test.sql;
  // each relation's rows of the changed keys, read once (the test may read a relation twice); a
  // null key is a key like any other
  const ctes = [`${CHANGED} as materialized (\n${changed.join('\nunion\n')}\n)`];
  current.reads.forEach((relation, at) => {
    const keyed = `_fanlake_keyed_${at}`;
    ctes.push(`${keyed} as materialized (\nselect * from ${tableOf(relation)} semi join ${CHANGED} on ${CHANGED}._fanlake_key is not distinct from (${declared.get(relation)!})\n)`);
    body = body.replace(customTestImport(relation), `select * from ${keyed}`);
  });
  return `with ${ctes.join(',\n')}\nselect * from (\n${body}\n) as failing`;
}
