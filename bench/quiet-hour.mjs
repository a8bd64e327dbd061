// Quiet-hour benchmark: after a first run (every step, its reports too), 0.1% of the customer
// profiles and 0.1% of the tickets change and a `fanlake run` follows, from copies of one data
// directory: with the push subscription (`fanlake listen` recording the changes, the run
// re-reading only them), without it (a full engagement snapshot), and `run --full-refresh`
// (everything extracted and built again, the identity model trained already). Prints the
// engagement requests, the raw bytes written and the wall time of each, as ratios; checks that
// the targeted run's warehouse equals a full rebuild of it; then a run right after the targeted
// one, with nothing changed.
import { cpSync, existsSync, copyFileSync, rmSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { rebuiltColumns } from './season-driver.mjs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { BIN, bytesUnder, CREDENTIALS, fmt, runOk, startSimulator, tempDir } from './lib.mjs';

const SECRET = 'bench-listen-secret-0123456789abcdefABCDEF';
const CHANGED_SHARE = 0.001;

/** Starts `fanlake listen --port 0`; resolves once it is ready (subscription validated). */
function startListener(env) {
  const child = spawn(BIN, ['listen', '--port', '0'], { env: { ...process.env, ...CREDENTIALS, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (/listening on /.test(out)) resolve({ stop: () => new Promise((done) => (child.once('exit', done), child.kill('SIGTERM'))) });
    });
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('exit', (code) => reject(new Error(`fanlake listen exited with ${code}: ${err.slice(-1000)}`)));
  });
}

/** One `fanlake run` as JSON: wall time, the engagement requests its extract made, the raw bytes it wrote. */
async function measuredRun(env, dataDir, flags = []) {
  const rawBefore = bytesUnder(join(dataDir, 'raw'));
  const run = await runOk(['run', '--format', 'json', ...flags], env);
  const summary = JSON.parse(run.stdout);
  const extract = summary.steps.find((step) => step.step === 'extract');
  const engagement = extract.results.filter((result) => result.name.startsWith('engagement.'));
  const requests = engagement.reduce((sum, result) => sum + (result.counts.requests ?? 0), 0);
  const seconds = Object.fromEntries(summary.steps.map((step) => [step.step, step.seconds]));
  const rowsRead = (name) => extract.results.find((result) => result.name === name)?.counts.rows ?? 0;
  const build = summary.steps.find((step) => step.step === 'build');
  const slowest = build.results.filter((result) => result.seconds !== undefined).sort((a, b) => b.seconds - a.seconds).slice(0, 6);
  return {
    wallMs: run.wallMs,
    requests,
    rawBytes: bytesUnder(join(dataDir, 'raw')) - rawBefore,
    seconds,
    slowest,
    built: build.counts.built,
    profilesRead: rowsRead('engagement.customer_profiles'),
    ticketsRead: rowsRead('ticketing.tickets'),
  };
}

const steps = (r) =>
  `extract ${fmt(r.seconds.extract, 1)}, load ${fmt(r.seconds.load, 1)}, build ${fmt(r.seconds.build, 1)} (${fmt(r.built)} models; slowest ${r.slowest.map((model) => `${model.name.split('.')[1]} ${fmt(model.seconds, 1)}`).join(', ')}), check ${fmt(r.seconds.check, 1)}, report ${fmt(r.seconds.report, 1)} s`;

/**
 * Files a copy of the listener's folder may skip: a `.tmp` the listener is writing (it renames it
 * into place), which can vanish between the copy's listing and its read.
 */
function notMidWrite(source) {
  return !source.endsWith('.tmp');
}

export async function benchQuietHour({ scale }) {
  const sim = await startSimulator(['--scale', String(scale), '--admin']);
  const targeted = tempDir('fanlake-bench-quiet-');
  const full = tempDir('fanlake-bench-full-');
  // Settled at once: with the default 30 s, changes pushed just before the run would wait for the
  // next one, and the targeted run would read none of them.
  const common = { FANLAKE_TICKETING_URL: sim.url, FANLAKE_ENGAGEMENT_URL: sim.url, FANLAKE_LISTEN_SECRET: SECRET, FANLAKE_LISTEN_SETTLE_SECONDS: '0' };
  const envA = { ...common, FANLAKE_DATA_DIR: targeted };
  const envB = { ...common, FANLAKE_DATA_DIR: full };
  const refreshed = tempDir('fanlake-bench-refresh-');
  const envC = { ...common, FANLAKE_DATA_DIR: refreshed };
  const listener = await startListener(envA);
  try {
    // The first run, as in production: everything read, loaded, built and checked.
    await runOk(['extract'], envA);
    await runOk(['load'], envA);
    await runOk(['build'], envA);
    // and checked, as every run is: the quiet run's check tests what changed since this one
    await runOk(['check'], envA);
    // and rendered, as every run is: the quiet run's reports take the charts drawn from the same rows
    await runOk(['report'], envA);
    // The same start without the receiver: each quiet run takes a full snapshot, as before.
    cpSync(targeted, full, { recursive: true, filter: notMidWrite });
    rmSync(join(full, 'listen'), { recursive: true, force: true });
    rmSync(join(full, 'state', 'engagement-snapshots.json'), { force: true });

    // The denominator the goal names: everything extracted and built again, with the model trained.
    cpSync(targeted, refreshed, { recursive: true, filter: notMidWrite });
    rmSync(join(refreshed, 'listen'), { recursive: true, force: true });
    // with the first run's renderings, as a club's full refresh finds them (it takes the charts
    // whose rows did not change, as the targeted run does)

    const { engagement, ticketing } = await (await fetch(`${sim.url}/__admin/info`)).json();
    const count = Math.max(1, Math.round(engagement.customer_profiles * CHANGED_SHARE));
    const tickets = Math.max(1, Math.round(ticketing.tickets * CHANGED_SHARE));
    await fetch(`${sim.url}/__admin/engagement/customer_profiles/change`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count }) });
    await fetch(`${sim.url}/__admin/ticketing/tickets/touch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: tickets }) });
    const push = await (await fetch(`${sim.url}/__admin/push?idle=true`)).json();
    // A ticketing run reads up to the last whole second before it began (date_end has whole
    // seconds): tickets touched in the second the run starts are the next run's. Start it in the
    // next second, so that it reads every change and its time is the quiet hour's.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));

    const withSubscription = await measuredRun(envA, targeted);
    const differences = await againstFullRebuild(targeted, envA);
    const without = await measuredRun(envB, full);
    const fullRefresh = await measuredRun(envC, refreshed, ['--full-refresh']);
    const nothing = await measuredRun(envA, targeted);
    // Planning a targeted run reads the subscription once, outside the extract's counts.
    const a = withSubscription.requests + 1;
    const n = nothing.requests + 1;
    return [
      [`quiet hour, scale ${scale}: ${fmt(count)} of ${fmt(engagement.customer_profiles)} profiles changed (${fmt(push.deliveredChanges)} pushed), ${fmt(tickets)} of ${fmt(ticketing.tickets)} tickets`, '', '', ''],
      ['  run wall time, with subscription / run --full-refresh', `${fmt(withSubscription.wallMs / 1000, 1)} s / ${fmt(fullRefresh.wallMs / 1000, 1)} s`, `ratio ${fmt(withSubscription.wallMs / fullRefresh.wallMs, 3)}`, withSubscription.wallMs <= fullRefresh.wallMs / 10 ? 'ok (≤ 0.1)' : 'MISSED (≤ 0.1)'],
      // A change the targeted run did not read (a ticket touched after its extract's window closed)
      // waits for the next run: the run is shorter for it, so the ratio above would flatter.
      ['  changes the targeted run read: profiles, tickets', `${fmt(withSubscription.profilesRead)} of ${fmt(count)}, ${fmt(withSubscription.ticketsRead)} of ${fmt(tickets)}`, '', withSubscription.profilesRead >= count && withSubscription.ticketsRead >= tickets ? 'ok' : 'MISSED (the ratio flatters)'],
      ['  its warehouse against a full rebuild of it', differences.length === 0 ? 'equal: every staging, intermediate and mart table' : `${differences.length} tables differ: ${differences.join(', ')}`, '', differences.length === 0 ? 'ok' : 'MISSED'],
      ['    steps of run --full-refresh', steps(fullRefresh), '', ''],
      ['  engagement requests, with / without subscription', `${fmt(a)} / ${fmt(without.requests)}`, `ratio ${fmt(a / without.requests, 4)}`, a / without.requests < 0.01 ? 'ok (< 1%)' : 'MISSED (< 1%)'],
      ['  raw bytes written, with / without', `${fmt(withSubscription.rawBytes / 1024)} KB / ${fmt(without.rawBytes / 1048576, 1)} MB`, `ratio ${fmt(withSubscription.rawBytes / without.rawBytes, 4)}`, withSubscription.rawBytes < 1048576 ? 'ok (< 1 MB)' : 'MISSED (< 1 MB)'],
      ['  run wall time, with / without', `${fmt(withSubscription.wallMs / 1000, 1)} s / ${fmt(without.wallMs / 1000, 1)} s`, `ratio ${fmt(withSubscription.wallMs / without.wallMs, 2)}`, withSubscription.wallMs < without.wallMs / 10 ? 'ok (< 0.1)' : 'MISSED (< 0.1)'],
      ['    steps with subscription', steps(withSubscription), '', ''],
      ['    steps without', steps(without), '', ''],
      ['  the run right after, nothing changed', `${fmt(n)} engagement requests, ${fmt(nothing.rawBytes / 1024)} KB raw, ${fmt(nothing.wallMs / 1000, 1)} s (${steps(nothing)})`, `ratio ${fmt(n / without.requests, 5)} of a full snapshot's requests`, ''],
    ];
  } finally {
    await listener.stop();
    await sim.stop();
    rmSync(targeted, { recursive: true, force: true });
    rmSync(full, { recursive: true, force: true });
    rmSync(refreshed, { recursive: true, force: true });
  }
}

/**
 * The tables of `dataDir`'s warehouse that differ from a `build --full-refresh` of a copy of it
 * (EXCEPT ALL both ways, the columns that say when a build saw or last changed a row aside).
 */
export async function againstFullRebuild(dataDir, env) {
  const rebuiltDir = tempDir('fanlake-bench-rebuilt-');
  try {
    for (const name of ['warehouse.duckdb', 'warehouse.duckdb.wal']) if (existsSync(join(dataDir, name))) copyFileSync(join(dataDir, name), join(rebuiltDir, name));
    await runOk(['build', '--full-refresh'], { ...env, FANLAKE_DATA_DIR: rebuiltDir });
    const instance = await DuckDBInstance.create(':memory:');
    const db = await instance.connect();
    const rows = async (sql) => (await db.runAndReadAll(sql)).getRowObjectsJson();
    try {
      await db.run(`attach '${join(dataDir, 'warehouse.duckdb')}' as incremental (read_only)`);
      await db.run(`attach '${join(rebuiltDir, 'warehouse.duckdb')}' as rebuilt (read_only)`);
      const tables = await rows(`select schema_name, table_name from duckdb_tables() where database_name = 'rebuilt' and schema_name in ('staging', 'intermediate', 'marts') order by all`);
      const differing = [];
      const compare = rebuiltColumns(dataDir);
      for (const { schema_name: schema, table_name: table } of tables) {
        const columns = compare(
          `${schema}.${table}`,
          (await rows(`select column_name from duckdb_columns() where database_name = 'rebuilt' and schema_name = '${schema}' and table_name = '${table}' order by column_index`)).map((row) => row.column_name),
        );
        const list = columns.map((column) => `"${column}"`).join(', ');
        const [row] = await rows(
          `select (select count(*) from (select ${list} from incremental.${schema}.${table} except all select ${list} from rebuilt.${schema}.${table})) + (select count(*) from (select ${list} from rebuilt.${schema}.${table} except all select ${list} from incremental.${schema}.${table})) as n`,
        );
        if (Number(row.n) > 0) {
          differing.push(`${schema}.${table} (${row.n} rows)`);
          // a few of them each way, to tell a stale table from a wrong one
          const sample = await rows(
            `(select 'incremental' as side, * from (select ${list} from incremental.${schema}.${table} except all select ${list} from rebuilt.${schema}.${table}) limit 3)
             union all (select 'rebuilt' as side, * from (select ${list} from rebuilt.${schema}.${table} except all select ${list} from incremental.${schema}.${table}) limit 3)`,
          );
          for (const differing of sample) console.error(`${schema}.${table}: ${JSON.stringify(differing)}`);
        }
      }
      return differing;
    } finally {
      db.closeSync();
      instance.closeSync();
    }
  } finally {
    rmSync(rebuiltDir, { recursive: true, force: true });
  }
}
