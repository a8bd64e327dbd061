import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { openDatabase } from '../../src/core/duckdb.js';
import { loadModelGraph } from '../../src/models/build-models.js';
import type { ModelGraph } from '../../src/models/model-graph.js';
import { parseSelect, visitNodes } from '../../src/models/sql-references.js';

/**
 * A row that differs from its stored one only in lineage columns is no change for a model's
 * children (materialize.ts), so a child that computed anything from such a column would keep a
 * stale answer. The stamps fanlake writes itself (a load's `_extracted_at`, a build's
 * `changed_at` and `read_at`) may steer a child's increment, which is what they are for; a
 * field the source sends that a model names as lineage (fct_tickets' `updated_at`: a ticket
 * saved again upstream with nothing else changed) must be read by none of its children.
 */
const STAMPS = new Set(['_extracted_at', 'changed_at', 'read_at']);

let instance: DuckDBInstance;
let connection: DuckDBConnection;
let graph: ModelGraph;

beforeAll(async () => {
  instance = await openDatabase(':memory:', { threads: 1 });
  connection = await instance.connect();
  graph = await loadModelGraph(undefined, instance);
});

afterAll(() => {
  connection?.closeSync();
  instance?.closeSync();
});

/** Every column name a model's SQL refers to, lowercased (the last part of a qualified name). */
async function columnsRead(sql: string): Promise<Set<string>> {
  const parsed = await parseSelect(connection, sql);
  if (!parsed.ok) throw new Error(parsed.problem);
  const names = new Set<string>();
  visitNodes(parsed.tree, (node) => {
    if (node.class === 'COLUMN_REF' && Array.isArray(node.column_names)) names.add(String(node.column_names.at(-1)).toLowerCase());
  });
  return names;
}

describe('lineage columns', () => {
  it('that are fields of the source are read by no model after theirs', async () => {
    const read: string[] = [];
    const named: string[] = [];
    for (const [relation, node] of graph.nodes) {
      if (node.kind !== 'model') continue;
      const fields = node.model.lineageColumns.filter((column) => !STAMPS.has(column.toLowerCase()));
      named.push(...fields.map((column) => `${relation}.${column}`));
      for (const child of graph.children.get(relation) ?? []) {
        const childNode = graph.nodes.get(child)!;
        if (childNode.kind !== 'model') continue;
        const columns = await columnsRead(childNode.model.sql);
        read.push(...fields.filter((column) => columns.has(column.toLowerCase())).map((column) => `${child} reads ${relation}.${column}`));
      }
    }
    expect(named).toContain('marts.fct_tickets.updated_at');
    expect(read).toEqual([]);
  });

  it('finds a column a model reads, in a CTE as in its select list', async () => {
    const columns = await columnsRead('with t as (select ticket_id from marts.fct_tickets where updated_at > now()) select t.ticket_id from t');
    expect([...columns].sort()).toEqual(['ticket_id', 'updated_at']);
  });
});
