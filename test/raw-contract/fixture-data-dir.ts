import { createHash } from 'node:crypto';
import { cp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { REPO, tempDataDir } from '../helpers/cli.js';

/**
 * A data dir as `fanlake extract` wrote it at commit b83438f (simulator, seed 7, scale 0.005):
 * two resource-runs (ticketing.merchandise windowed, engagement.consent_texts a snapshot),
 * the run summary and the ticketing state. Files of that version must keep loading.
 */
export const FIXTURE = join(REPO, 'test', 'raw-contract', 'fixtures', 'data-dir-b83438f');

/**
 * A copy of the fixture with its Parquet parts made again: the repository keeps each part's
 * rows as text (`part-NNNNN.ndjson`, the rows of b83438f's part), not generated binaries.
 * Each part is written with the column types its manifest records plus the lineage columns
 * as that version typed them (and no `run` column read from the folder name `run=<id>`, which
 * DuckDB would otherwise take for a hive partition), and the manifest's size and sha256 of the part are set to the
 * new file's; every other byte of manifests, summary and state is as that version wrote it.
 */
export async function fixtureDataDir(): Promise<string> {
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
        await connection.run(`copy (select * from read_json('${text}', format = 'newline_delimited', columns = ${columnsSql}, hive_partitioning = false)) to '${part}' (format parquet)`);
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
export async function fixtureFiles() {
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
