// The memory design of extraction and load, not their speed: 300k wide ticket rows extracted
// through bin/fanlake against a server that costs next to nothing to serve, then loaded; each
// command's peak RSS beside its bound. Pages stream through a bounded number of slots, read
// from their bytes without becoming objects, into spool parts of 28 MiB, each converted to
// Parquet by the one DuckDB kept for the run (docs/extraction.md); the load reads the batch
// from its Parquet files where needed instead of copying it first. The extract bound is
// the goal for 1M rows with room for GC timing on a busy machine, and still fails the
// designs before this one by far (docs/benchmarks.md).
// Usage alone: node bench/memory.mjs
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, CREDENTIALS, fmt, REPO, startSimulator, tempDir } from './lib.mjs';

const ROWS = 300_000;
const PAGE_SIZE = 200;
const PEAK_RSS_BOUND_MB = 300;
const LOAD_PEAK_RSS_BOUND_MB = 400;
/** Spool parts end at this much JSON. */
const PART_BYTES = 28 * 2 ** 20;
const TOKEN = CREDENTIALS.FANLAKE_TICKETING_TOKEN;
const LAST_UPDATE = '2026-05-01T12:00:00.000Z';

/**
 * A ticketing API that answers from one real ticket (taken from the simulator), all changed
 * in one second: each page starts with a ticket of its own id (pages must start with
 * different records) followed by the same 199 tickets, so serving costs next to nothing and
 * the child's memory is what is measured. Raw keeps duplicates; the load deduplicates.
 */
async function startTicketServer() {
  const sim = await startSimulator(['--scale', '0.02', '--now', '2026-06-01T00:00:00Z']);
  let sample;
  try {
    const window = `date_init=${Date.parse('2024-06-01') / 1000}&date_end=${Date.parse('2026-06-01') / 1000}`;
    const response = await fetch(`${sim.url}/api/tickets?${window}&count_elements=1&page=1&order=ASC`, { headers: { authorization: `Basic ${TOKEN}` } });
    sample = (await response.json()).items[0];
  } finally {
    await sim.stop();
  }
  const [before, after] = JSON.stringify({ ...sample, id: '@ID@', last_update: LAST_UPDATE }).split('"@ID@"');
  const item = (id) => `${before}${JSON.stringify(id)}${after}`;
  const rowBytes = Buffer.byteLength(item('R100')) + 1;
  const rest = Buffer.from(`,${Array.from({ length: PAGE_SIZE - 1 }, (_, k) => item(`R${k}`)).join(',')}]}`);
  const second = Date.parse(LAST_UPDATE) / 1000;
  const server = createServer((request, response) => {
    const query = new URL(request.url, 'http://localhost').searchParams;
    if (request.headers.authorization !== `Basic ${TOKEN}`) return void response.writeHead(401).end();
    const inWindow = Number(query.get('date_init')) <= second && second <= Number(query.get('date_end'));
    const page = Number(query.get('page'));
    response.writeHead(200, { 'content-type': 'application/json' });
    if (!inWindow || query.get('count_elements') !== String(PAGE_SIZE) || page < 1 || page > ROWS / PAGE_SIZE) {
      return void response.end(`{"count":"${inWindow ? ROWS : 0}","page":"${page}","items":[]}`);
    }
    response.write(`{"count":"${ROWS}","page":"${page}","items":[${item(`T${page}`)}`);
    response.end(rest);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}`, rowBytes };
}

/** Runs bin/fanlake as a user does (its own line sets Node's flags); its exit code and the kernel's peak RSS of the whole process, from its own getrusage(2) at exit. */
function fanlake(dir, url, args) {
  const rssFile = join(dir, `max-rss-${args[0]}`);
  const child = spawn(BIN, args, {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      TZ: 'UTC',
      CI: '1',
      FANLAKE_TICKETING_URL: url,
      FANLAKE_TICKETING_TOKEN: TOKEN,
      FANLAKE_TICKETING_START_DATE: '2024-01-01',
      FANLAKE_DATA_DIR: join(dir, 'data'),
      FANLAKE_CONCURRENCY: '8',
      NODE_OPTIONS: `--import ${join(REPO, 'bench', 'max-rss-at-exit.mjs')}`,
      BENCH_MAX_RSS_FILE: rssFile,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr, peakMb: Number(readFileSync(rssFile, 'utf8')) / 1024 })));
}

/** A command that must succeed: its failure thrown with the end of what it printed. */
function succeeded(run, what) {
  if (run.code !== 0) throw new Error(`fanlake ${what} failed: ${run.stderr.slice(-2000)}`);
  return run;
}

/** A peak beside its bound. */
function verdict(run, boundMb) {
  return run.peakMb < boundMb ? `ok (< ${boundMb} MB)` : `MISSED (< ${boundMb} MB)`;
}

export async function benchMemory() {
  const { server, url, rowBytes } = await startTicketServer();
  const dir = tempDir('fanlake-bench-memory-');
  try {
    const extract = succeeded(await fanlake(dir, url, ['extract', '--source', 'ticketing', '--resource', 'tickets']), 'extract');
    const runs = join(dir, 'data', 'raw', 'ticketing', 'tickets');
    const manifest = JSON.parse(readFileSync(join(runs, readdirSync(runs)[0], '_manifest.json'), 'utf8'));
    if (manifest.rows !== ROWS) throw new Error(`extracted ${manifest.rows} rows, not ${ROWS}`);
    // Every part but the last holds 28 MiB of these rows, give or take a page.
    const partRows = manifest.files.map((file) => file.rows);
    const perPart = PART_BYTES / rowBytes;
    const offPart = partRows.slice(0, -1).find((rows) => Math.abs(rows - perPart) >= PAGE_SIZE);
    if (partRows.length <= 10 || offPart !== undefined) throw new Error(`parts of ${partRows.join(', ')} rows, not of about ${fmt(perPart)}`);
    const load = succeeded(await fanlake(dir, url, ['load']), 'load');
    return [
      [`memory: extract ${fmt(ROWS)} wide ticket rows`, `peak RSS ${fmt(extract.peakMb)} MB, ${partRows.length} parts of about ${fmt(perPart)} rows (28 MiB of JSON)`, '', verdict(extract, PEAK_RSS_BOUND_MB)],
      ['memory: load them (a first load)', `peak RSS ${fmt(load.peakMb)} MB`, '', verdict(load, LOAD_PEAK_RSS_BOUND_MB)],
    ];
  } finally {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const row of await benchMemory()) console.log(row.filter(Boolean).join('  '));
}
