import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadWarehouse } from '../../src/load/load-warehouse.js';
import { tempDataDir, warehouseRows, warehouseState, writeRun } from './raw-fixtures.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// The loader's own modules, compiled so a plain `node` child can run them.
const CHILD_SOURCES = ['src/core', 'src/config', 'src/raw-contract', 'src/load', 'src/warehouse', 'src/listen', 'src/extract'];

let work: string;

beforeAll(async () => {
  work = await tempDataDir();
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** Transpiles the loader into `<dir>` with a runner script; node_modules is linked, not copied. */
async function buildChild(dir: string): Promise<string> {
  for (const folder of CHILD_SOURCES) {
    for (const name of await readdir(join(ROOT, folder))) {
      if (!name.endsWith('.ts')) continue;
      const source = await readFile(join(ROOT, folder, name), 'utf8');
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
        fileName: name,
      });
      await mkdir(join(dir, folder), { recursive: true });
      await writeFile(join(dir, folder, name.replace(/\.ts$/, '.js')), outputText);
    }
  }
  await writeFile(join(dir, 'package.json'), '{"type": "module"}\n');
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const runner = join(dir, 'run-load.js');
  await writeFile(
    runner,
    `import { loadWarehouse } from './src/load/load-warehouse.js';
await loadWarehouse({
    dataDir: process.argv[2],
    threads: 1,
    onEvent: (event) => process.stdout.write(event.type + '\\n'),
});
process.stdout.write('done\\n');
`,
  );
  return runner;
}

function* pages(count: number, make: (index: number) => Record<string, unknown>): Generator<Record<string, unknown>[]> {
  const size = 10_000;
  for (let start = 0; start < count; start += size) {
    yield Array.from({ length: Math.min(size, count - start) }, (_, offset) => make(start + offset));
  }
}

/** Runs the load in a child and SIGKILLs it as soon as the first table is merged, before the commit. */
function loadAndKill(runner: string, dataDir: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [runner, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    const seen: string[] = [];
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        seen.push(line);
        if (line === 'table-merged') child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('exit', () => resolve(seen));
  });
}

it('a load killed mid-transaction leaves the warehouse exactly as before', async () => {
  const dataDir = join(work, 'data');
  const runner = await buildChild(join(work, 'child'));
  const ticket = (id: number, status: string, day: string) => ({
    id,
    status,
    price: id / 100,
    buyer: `buyer ${id % 5000}`,
    last_update: `2024-05-${day}T09:00:00.000Z`,
  });
  const columns = { id: 'BIGINT', status: 'VARCHAR', price: 'DOUBLE', buyer: 'VARCHAR', last_update: 'VARCHAR' };
  await writeRun(dataDir, {
    resource: 'members',
    extractedAt: '2024-05-01T10:00:00.000Z',
    columns,
    primaryKey: ['id'],
    cursorField: 'last_update',
    pages: pages(150_000, (id) => ticket(id, 'open', '01')),
  });
  await loadWarehouse({ dataDir, threads: 1 });
  const before = await warehouseState(join(dataDir, 'warehouse.duckdb'));

  // The next load: a large update of the first table, then a larger second table.
  await writeRun(dataDir, {
    resource: 'members',
    extractedAt: '2024-05-02T10:00:00.000Z',
    columns,
    primaryKey: ['id'],
    cursorField: 'last_update',
    pages: pages(150_000, (index) => ticket(index + 75_000, 'paid', '02')),
  });
  await writeRun(dataDir, {
    resource: 'tickets',
    extractedAt: '2024-05-02T10:00:00.000Z',
    columns,
    primaryKey: ['id'],
    cursorField: 'last_update',
    pages: pages(400_000, (id) => ticket(id, 'open', '02')),
  });

  const seen = await loadAndKill(runner, dataDir);
  expect(seen).toContain('table-merged');
  expect(seen).not.toContain('committed');
  expect(await warehouseState(join(dataDir, 'warehouse.duckdb'))).toEqual(before);

  // The interrupted load simply runs again.
  const results = await loadWarehouse({ dataDir, threads: 1 });
  expect(results.map((result) => [result.table, result.status, result.inserted, result.updated])).toEqual([
    ['raw.ticketing_members', 'ok', 75_000, 75_000],
    ['raw.ticketing_tickets', 'ok', 400_000, 0],
  ]);
  const [members] = await warehouseRows(
    join(dataDir, 'warehouse.duckdb'),
    `select count(*) as n, count(*) filter (where status = 'paid') as paid from raw.ticketing_members`,
  );
  expect(members).toEqual({ n: '225000', paid: '150000' });
}, 60_000);
