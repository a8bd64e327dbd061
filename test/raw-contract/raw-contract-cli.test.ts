import { createHash } from 'node:crypto';
import { cp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { REPO, runCli, tempDataDir } from '../helpers/cli.js';
import { queryWarehouse } from '../helpers/warehouse.js';

/**
 * A data dir as `fanlake extract` wrote it at commit b83438f (simulator, seed 7, scale 0.005):
 * two resource-runs (ticketing.merchandise windowed, engagement.consent_texts a snapshot),
 * the run summary and the ticketing state. Files of that version must keep loading.
 */
const FIXTURE = join(REPO, 'test', 'raw-contract', 'fixtures', 'data-dir-b83438f');

/**
 * A copy of the fixture with its Parquet parts made again: the repository keeps each part's
 * rows as text (`part-NNNNN.ndjson`, the rows of b83438f's part), not generated binaries.
 * Each part is written with the column types its manifest records plus the lineage columns
 * as that version typed them, and the manifest's size and sha256 of the part are set to the
 * new file's; every other byte of manifests, summary and state is as that version wrote it.
 */
async function fixtureDataDir(): Promise<string> {
  const dataDir = tempDataDir();
  await cp(FIXTURE, dataDir, { recursive: true });
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    for (const { path } of (await fixtureFiles()).manifests) {
      const manifestPath = join(dataDir, path);
      const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
      const columns = { ...manifest.columns, _run_id: 'VARCHAR', _extracted_at: 'TIMESTAMPTZ' } as Record<string, string>;
      const columnsSql = `{${Object.entries(columns).map(([name, type]) => `'${name}': '${type}'`).join(', ')}}`;
      for (const file of manifest.files as { path: string; bytes: number; sha256: string }[]) {
        const part = join(dataDir, file.path);
        const text = part.replace(/\.parquet$/, '.ndjson');
        await connection.run(`copy (select * from read_json('${text}', format = 'newline_delimited', columns = ${columnsSql})) to '${part}' (format parquet)`);
        await rm(text);
        const bytes = await readFile(part);
        file.bytes = bytes.length;
        file.sha256 = createHash('sha256').update(bytes).digest('hex');
      }
      await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  return dataDir;
}

/** The fixture's manifests and summary as plain JSON, read without the code under test. */
async function fixtureFiles() {
  const manifests: { source: string; resource: string; runId: string; extractedAt: string; rows: number; path: string }[] = [];
  for (const source of await readdir(join(FIXTURE, 'raw'))) {
    for (const resource of await readdir(join(FIXTURE, 'raw', source))) {
      for (const run of await readdir(join(FIXTURE, 'raw', source, resource))) {
        const path = join('raw', source, resource, run, '_manifest.json');
        manifests.push({ ...JSON.parse(await readFile(join(FIXTURE, path), 'utf8')), path });
      }
    }
  }
  const [summaryFile] = await readdir(join(FIXTURE, 'runs'));
  const summary = JSON.parse(await readFile(join(FIXTURE, 'runs', summaryFile!), 'utf8')) as { runId: string; finishedAt: string; results: { status: string }[] };
  return { manifests, summary };
}

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
    const tables = await queryWarehouse(dataDir, `select table_name from duckdb_tables() where schema_name = 'raw' and table_name not like '\\_%' escape '\\'`);
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
