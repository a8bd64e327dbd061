import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_MEMORY, openDatabase, quoteLiteral, withConnection } from '../../src/core/duckdb.js';
import { contentSignature } from '../../src/models/build-state.js';
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

/** Each raw table of a data dir, lineage left out, as build signs a table: its row count and the sum of its rows' hashes. */
async function rawContent(dataDir: string): Promise<Record<string, string>> {
  const content: Record<string, string> = {};
  const duckdb = await openDatabase(IN_MEMORY);
  try {
    await withConnection(duckdb, async (connection) => {
      for (const source of readdirSync(join(dataDir, 'raw'))) {
        for (const resource of readdirSync(join(dataDir, 'raw', source))) {
          const glob = join(dataDir, 'raw', source, resource, 'run=*', '*.parquet');
          await connection.run(`create or replace view raw_table as select * exclude (_run_id, _extracted_at) from read_parquet(${quoteLiteral(glob)}, hive_partitioning = false)`);
          content[`${source}.${resource}`] = await contentSignature(connection, 'raw_table');
        }
      }
    });
  } finally {
    duckdb.closeSync();
  }
  return content;
}

describe('extract.conversionMemory', () => {
  it('keep (the default: one DuckDB for every part of the run) writes the same raw rows as release (one per part)', async () => {
    const released = tempDataDir();
    const kept = tempDataDir();
    await runCliOk(['extract', '--conversion-memory', 'release'], cliEnv(sim, released));
    await runCliOk(['extract'], cliEnv(sim, kept));
    const expected = await rawContent(released);
    // Every ticketing resource and the engagement lists hold rows, so both runs converted many parts.
    expect(Object.values(expected).filter((content) => !content.startsWith('rows 0 ')).length).toBeGreaterThan(10);
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
