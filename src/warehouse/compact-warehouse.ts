import { rm, stat } from 'node:fs/promises';
import { commitFile, TMP_SUFFIX } from '../core/atomic-file.js';
import { type DuckDBBudget, queryRows, quoteIdent, quoteLiteral, withConnection } from '../core/duckdb.js';
import { warehousePath } from '../raw-contract/index.js';

/**
 * Writes the warehouse again into a fresh file (`COPY FROM DATABASE`: schemas, tables, views,
 * macros and rows) and puts it in place of the old one. DuckDB reuses the blocks that deleted
 * rows leave free but does not clear them, so after an erasure the old file may still hold the
 * erased bytes; the fresh file holds only what is live. Call it holding the writer lock, with no
 * other connection open. Returns the sizes before and after.
 */
export async function compactWarehouse(dataDir: string, budget: DuckDBBudget = {}): Promise<{ before: number; after: number }> {
  const path = warehousePath(dataDir);
  const fresh = `${path}.compact${TMP_SUFFIX}`;
  await rm(fresh, { force: true });
  const before = (await stat(path)).size;
  try {
    await withConnection(
      path,
      async (connection) => {
        const [row] = await queryRows(connection, 'select current_database() as name');
        await connection.run('checkpoint');
        await connection.run(`attach ${quoteLiteral(fresh)} as fanlake_compact`);
        await connection.run(`copy from database ${quoteIdent(String(row!.name))} to fanlake_compact`);
        await connection.run('detach fanlake_compact');
      },
      budget,
    );
    // Closed: the old file's WAL is checkpointed into it and gone, the fresh one has none.
    await rm(`${path}.wal`, { force: true });
    await commitFile(fresh, path);
  } finally {
    await rm(fresh, { force: true });
    await rm(`${fresh}.wal`, { force: true });
  }
  return { before, after: (await stat(path)).size };
}
