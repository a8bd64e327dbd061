import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, quoteLiteral, withConnection, openDatabase, IN_MEMORY } from '../../src/core/duckdb.js';
import type { Simulator } from '../../src/simulator/simulator.js';
import { runCli, tempDataDir } from '../helpers/cli.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { cliEnv, runCliOk } from '../warehouse/identity-fixture.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startTestSimulator({ scale: 0.05 });
});
afterAll(async () => {
  await sim.close();
});

/** Each raw table of a data dir: its row count and the sum of its rows' hashes, lineage left out. */
async function rawContent(dataDir: string): Promise<Record<string, string>> {
  const content: Record<string, string> = {};
  const duckdb = await openDatabase(IN_MEMORY);
  try {
    for (const source of readdirSync(join(dataDir, 'raw'))) {
      for (const resource of readdirSync(join(dataDir, 'raw', source))) {
        const glob = join(dataDir, 'raw', source, resource, 'run=*', '*.parquet');
        const [row] = await withConnection(duckdb, (connection) =>
          queryRows(
            connection,
            `select count(*)::varchar || ' ' || coalesce(sum(hash(t))::varchar, '') as content
             from (select * exclude (_run_id, _extracted_at) from read_parquet(${quoteLiteral(glob)}, hive_partitioning = false)) as t`,
          ),
        );
        content[`${source}.${resource}`] = String(row!.content);
      }
    }
  } finally {
    duckdb.closeSync();
  }
  return content;
}

describe('extract.conversionMemory', () => {
  it('keep (one DuckDB for every part of the run) writes the same raw rows as release (one per part)', async () => {
    const released = tempDataDir();
    const kept = tempDataDir();
    await runCliOk(['extract'], cliEnv(sim, released));
    await runCliOk(['extract', '--conversion-memory', 'keep'], cliEnv(sim, kept));
    const expected = await rawContent(released);
    // Every ticketing resource and the engagement lists hold rows, so both runs converted many parts.
    expect(Object.values(expected).filter((content) => !content.startsWith('0 ')).length).toBeGreaterThan(10);
    expect(await rawContent(kept)).toEqual(expected);
  });

  it('names the values it accepts when given another', async () => {
    const result = await runCli(['extract'], { ...cliEnv(sim, tempDataDir()), FANLAKE_CONVERSION_MEMORY: 'hold' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/FANLAKE_CONVERSION_MEMORY/);
    expect(result.stderr).toMatch(/release/);
    expect(result.stderr).toMatch(/keep/);
  });
});
