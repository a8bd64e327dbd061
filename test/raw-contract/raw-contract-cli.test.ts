import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { fixtureDataDir, fixtureFiles } from './fixture-data-dir.js';

describe('the raw contract through the CLI', () => {
  it('loads a data dir written by the previous version, lineage included, and status reports its last extraction', async () => {
    const dataDir = await fixtureDataDir();
    const { manifests, summary } = await fixtureFiles();
    expect(manifests.length).toBe(2);

    const load = await runCli(['load'], { FANLAKE_DATA_DIR: dataDir });
    expect(load.code, load.stderr).toBe(0);
    for (const manifest of manifests) {
      const [row] = await queryWarehouse(
        dataDir,
        `select count(*)::int as n, min(_run_id) as run_id, max(_run_id) as last_run_id, min(_extracted_at) = '${manifest.extractedAt}'::timestamptz as stamped
         from raw.${manifest.source}_${manifest.resource}`,
      );
      expect(row).toEqual({ n: manifest.rows, run_id: manifest.runId, last_run_id: manifest.runId, stamped: true });
    }
    const [recorded] = await queryWarehouse(dataDir, `select count(*)::int as n from meta.extraction_runs where run_id = '${summary.runId}'`);
    expect(recorded!.n).toBe(summary.results.length);

    const status = await runCli(['status'], { FANLAKE_DATA_DIR: dataDir });
    expect(status.code, status.stderr).toBe(0);
    const count = (wanted: string) => summary.results.filter((result) => result.status === wanted).length;
    expect(status.stdout).toContain(
      `last extraction ${summary.runId} finished ${summary.finishedAt}: ${count('ok')} ok, ${count('partial')} partial, ${count('failed')} failed, ${count('skipped')} skipped`,
    );
    expect(status.stdout).toMatch(/ticketing\.merchandise/);
  });

  it('status and load name a malformed run summary instead of crashing or loading half', async () => {
    const dataDir = await fixtureDataDir();
    // Newer than the fixture's run, so status reads it; a results list of the wrong shape.
    const path = join(dataDir, 'runs', '20991231T000000Z-000000.json');
    await writeFile(path, JSON.stringify({ runId: '20991231T000000Z-000000', startedAt: 'yesterday', results: {} }));

    const status = await runCli(['status'], { FANLAKE_DATA_DIR: dataDir });
    expect(status.code).toBe(1);
    expect(status.stderr).toContain(`run summary ${path} is invalid`);
    expect(status.stderr).toMatch(/startedAt/);
    expect(status.stderr).not.toMatch(/TypeError|at .*\.js:\d+/);

    const load = await runCli(['load'], { FANLAKE_DATA_DIR: dataDir });
    expect(load.code).toBe(1);
    expect(load.stderr).toContain(`run summary ${path} is invalid`);
    const tables = await queryWarehouse(dataDir, `select table_name from duckdb_tables() where schema_name = 'raw'`);
    expect(tables).toEqual([]);
  });

  it('load names a malformed manifest, fails that table and still loads the others', async () => {
    const dataDir = await fixtureDataDir();
    const { manifests } = await fixtureFiles();
    const broken = manifests.find((manifest) => manifest.resource === 'consent_texts')!;
    const intact = manifests.find((manifest) => manifest.resource === 'merchandise')!;
    const path = join(dataDir, broken.path);
    const { files: _files, ...withoutFiles } = JSON.parse(await readFile(path, 'utf8'));
    await writeFile(path, JSON.stringify(withoutFiles));

    const load = await runCli(['load'], { FANLAKE_DATA_DIR: dataDir });
    expect(load.code).toBe(1);
    expect(load.stderr).toContain(`raw.engagement_consent_texts: manifest ${path} is invalid`);
    expect(load.stderr).toMatch(/files/);
    const [loaded] = await queryWarehouse(dataDir, `select count(*)::int as n from raw.ticketing_merchandise`);
    expect(loaded!.n).toBe(intact.rows);
    const missing = await queryWarehouse(dataDir, `select table_name from duckdb_tables() where table_name = 'engagement_consent_texts'`);
    expect(missing).toEqual([]);
  });
});
