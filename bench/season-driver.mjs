// A simulated season of hourly runs, shared by test/e2e/season.test.ts and `make bench`
// (bench/season.mjs): hourly steps in which the simulator sells tickets and changes profiles
// (pushed to `fanlake listen`), events (the API down, a 429 storm, the receiver killed, a
// crash at a named point), a `fanlake run` each hour, and at the end a comparison with a fresh
// full load and a full rebuild. Every process sees the season's time: the simulator through
// POST /__admin/clock, the CLI children through test/helpers/season-clock.mjs, whose file the
// driver rewrites; nothing waits on wall time, only on output, files and the platform's queue.
import { spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, watch, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const REPO = resolve(import.meta.dirname, '..');
const BIN = join(REPO, 'bin', 'fanlake');
const CLOCK_PRELOAD = join(REPO, 'test', 'helpers', 'season-clock.mjs');
const HOUR_MS = 3_600_000;
/** A run starts this long after its hour's changes: past the extractor's whole-second cut-off. */
const RUN_AFTER_MS = 5 * 60_000;

/**
 * Each hour's run, with one small report (the club's revenue, from a folder of its own): the
 * season follows the data, the reports have tests of their own and would only cost CPU here.
 */
const SEASON_RUN = ['run', '--format', 'json'];
const SEASON_REPORT = `---
title: Season revenue
description: Paid revenue over every month, to see that each hour's run renders a report.
personalData: false
---

\`\`\`sql revenue
select sum(revenue) as revenue from marts.revenue_monthly
\`\`\`
`;

export const SEASON_SECRET = 'season-listen-secret-0123456789abcdefABCDEF';

/**
 * The suite's season: hours from the simulator's start, each with its events and how its run
 * must end (`ok`; `failed`: exit 1; `killed`: at a crash point; `none`: no run that hour).
 * Every event of the driver happens at least once; the night between is jumped over.
 */
export const SHORT_SEASON = [
  { hour: 3, events: [['sell', 20]], run: 'ok' },
  { hour: 4, events: [['sell', 10], ['changeProfiles', 4], ['removeProfiles', 1], ['crashAt', 'load:committed']], run: 'killed' },
  { hour: 5, events: [['changeProfiles', 2], ['addUsers', 2], ['retrain']], run: 'ok' },
  { hour: 6, events: [['apiDown'], ['changeProfiles', 3]], run: 'failed' },
  { hour: 7, events: [['apiUp']], run: 'none' },
  { hour: 26, events: [['badJournalLine'], ['killReceiver'], ['changeProfiles', 3], ['restartReceiver'], ['storm429', 5], ['sell', 5], ['touchTickets', 5]], run: 'ok' },
];

/**
 * The bench's season: `days` days of hourly runs, a nightly snapshot each night (the default
 * schedule, 02:00 UTC), the API down for one hour each day, a 429 storm, the receiver killed
 * and restarted, a bad journal line and a crash in a load on each day, a retrain applied on the
 * middle day, and the next night's snapshot at the end.
 */
export function longSeason(days) {
  const steps = [];
  for (let day = 0; day < days; day++) {
    for (let hourOfDay = 0; hourOfDay < 24; hourOfDay++) {
      const hour = day * 24 + hourOfDay;
      const events = [['sell', 8 + (hour % 5)], ['changeProfiles', 1 + (hour % 4)]];
      let run = 'ok';
      // Every table changes daily, so each is merged, not only re-read (freshness no longer needs it: docs/decisions.md, "Freshness of a quiet table").
      if (hourOfDay === 9) events.push(['sellMerchandise', 3], ['touchMembers', 1], ['touchPermissions', 1]);
      if (hourOfDay === 10) events.unshift(['apiDown']), (run = 'failed');
      if (hourOfDay === 11) events.unshift(['apiUp'], ['storm429', 5]);
      if (hourOfDay === 13) events.unshift(['badJournalLine']);
      if (hourOfDay === 15) events.unshift(['killReceiver'], ['changeProfiles', 2], ['restartReceiver']);
      if (hourOfDay === 16 && day === Math.floor(days / 2)) events.push(['retrain']);
      if (hourOfDay === 18) events.push(['addUsers', 2], ['removeProfiles', 1]);
      if (hourOfDay === 20) events.push(['crashAt', 'load:committed']), (run = 'killed');
      steps.push({ hour, events, run });
    }
  }
  // The next night's snapshot ends it: a removal is seen by a full snapshot, not by a re-read.
  steps.push({ hour: days * 24 + 2, events: [['sell', 5]], run: 'ok' });
  return steps;
}

/** POSTs JSON to the simulator's admin surface; returns the parsed answer. */
async function admin(simUrl, path, body) {
  const response = await fetch(`${simUrl}/__admin/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`/__admin/${path}: ${response.status} ${await response.text()}`);
  const text = await response.text();
  return /^(engagement|ticketing)\//.test(path) && body === undefined ? text.split('\n').filter(Boolean).map((line) => JSON.parse(line)) : JSON.parse(text);
}

/** The season's clock: the simulator's, and the file the CLI children follow. */
class SeasonClock {
  constructor(simUrl, dir) {
    this.simUrl = simUrl;
    this.file = join(dir, 'season-clock.json');
  }

  /** Moves the season to `ms` (never back) in the simulator and in the file. */
  async set(ms) {
    const { now } = await admin(this.simUrl, 'clock', { to: ms });
    this.nowMs = Date.parse(now);
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify({ seasonMs: this.nowMs, realMs: Date.now() }));
    renameSync(temporary, this.file);
    return this.nowMs;
  }

  get env() {
    return { NODE_OPTIONS: `--import ${CLOCK_PRELOAD}`, FANLAKE_TEST_CLOCK_FILE: this.file };
  }
}

/** Resolves once `check()` is true, checked now and whenever something in `dir` changes. */
function whenFile(dir, check) {
  return new Promise((resolvePromise) => {
    const watcher = watch(dir, () => {
      if (check()) watcher.close(), resolvePromise();
    });
    if (check()) watcher.close(), resolvePromise();
  });
}

/** A CLI child; `done` resolves with its exit and output, `waitFor` on a line it prints. */
function fanlake(args, env) {
  const started = performance.now();
  // a folder of its own, so no ./fanlake.config.json or .env of the caller applies; removed at its close
  const cwd = mkdtempSync(join(tmpdir(), 'fanlake-season-cwd-'));
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', TZ: 'UTC', CI: '1', FANLAKE_THREADS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters = [];
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    for (const waiter of [...waiters]) {
      const match = waiter.pattern.exec(stdout);
      if (match) waiters.splice(waiters.indexOf(waiter), 1), waiter.resolve(match);
    }
  });
  child.stderr.on('data', (chunk) => (stderr += chunk));
  // CPU (user + system) sampled from /proc, as bench/lib.mjs does: the last sample before the exit.
  let cpuTicks = 0;
  const sample = setInterval(() => {
    try {
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      cpuTicks = Number(fields[11]) + Number(fields[12]);
    } catch {
      // ended between samples
    }
  }, 100);
  const done = new Promise((resolvePromise) =>
    child.on('close', (code, signal) => {
      clearInterval(sample);
      rmSync(cwd, { recursive: true, force: true });
      resolvePromise({ code, signal, stdout, stderr, wallMs: performance.now() - started, cpuMs: cpuTicks * 10 });
    }),
  );
  const waitFor = (pattern) =>
    new Promise((resolvePromise, reject) => {
      waiters.push({ pattern, resolve: resolvePromise });
      void done.then((result) => reject(new Error(`fanlake ${args.join(' ')} ended (${result.code}) before printing ${pattern}: ${result.stderr.slice(-2000)}`)));
    });
  return { child, done, waitFor };
}

/** Bytes of every file under a path (0 when it does not exist). */
export function bytesUnder(path) {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0);
}

function diskOf(dataDir) {
  return {
    raw: bytesUnder(join(dataDir, 'raw')),
    warehouse: bytesUnder(join(dataDir, 'warehouse.duckdb')) + bytesUnder(join(dataDir, 'warehouse.duckdb.wal')),
    listen: bytesUnder(join(dataDir, 'listen')),
    total: bytesUnder(dataDir),
  };
}

/**
 * A season against a simulator served with `--admin` at `simUrl` whose credentials are in
 * `env` (FANLAKE_TICKETING_*, FANLAKE_ENGAGEMENT_*). Runs `steps` in order; returns what each
 * run did and the context `compareSeason` needs. A run that does not end as its step says
 * throws. `onStep` is told after each run.
 */
export async function runSeason({ simUrl, env, steps, workDir, onStep }) {
  const dataDir = join(workDir, 'season');
  mkdirSync(dataDir, { recursive: true });
  const clock = new SeasonClock(simUrl, workDir);
  const startMs = Date.parse((await admin(simUrl, 'info')).dataTime);
  await clock.set(startMs);
  const reportsDir = join(workDir, 'reports');
  mkdirSync(reportsDir, { recursive: true });
  writeFileSync(join(reportsDir, 'season-revenue.md'), SEASON_REPORT);
  const commonEnv = { ...env, ...clock.env, FANLAKE_LISTEN_SECRET: SEASON_SECRET, FANLAKE_REPORT_DEFINITIONS: reportsDir };
  const seasonEnv = { ...commonEnv, FANLAKE_DATA_DIR: dataDir };
  const state = { receiver: undefined, port: '0', crashAt: undefined, retrainAfterRun: false, changedProfiles: new Set(), changedThisHour: new Set() };
  const receiverFile = join(dataDir, 'listen', 'receiver.json');
  const heartbeatAt = () => {
    try {
      return Date.parse(JSON.parse(readFileSync(receiverFile, 'utf8')).heartbeatAt);
    } catch {
      return 0;
    }
  };

  const EVENTS = {
    sell: (count) => admin(simUrl, 'ticketing/tickets/add', { count }),
    touchTickets: (count) => admin(simUrl, 'ticketing/tickets/touch', { count }),
    addUsers: (count) => admin(simUrl, 'ticketing/users/add', { count }),
    sellMerchandise: (count) => admin(simUrl, 'ticketing/merchandise/add', { count }),
    touchMembers: (count) => admin(simUrl, 'ticketing/members/touch', { count }),
    touchPermissions: (count) => admin(simUrl, 'ticketing/user_permissions/touch', { count }),
    changeProfiles: async (count) => {
      const { ids } = await admin(simUrl, 'engagement/customer_profiles/change', { count });
      for (const id of ids) state.changedProfiles.add(id), state.changedThisHour.add(id);
    },
    removeProfiles: async (count) => {
      const live = (await admin(simUrl, 'engagement/customer_profiles')).map((profile) => String(profile.id));
      const ids = live.filter((id) => !state.changedProfiles.has(id)).slice(0, count);
      await admin(simUrl, 'engagement/customer_profiles/remove', { ids });
      for (const id of ids) state.changedProfiles.add(id), state.changedThisHour.add(id);
    },
    apiDown: () => admin(simUrl, 'faults', { force: { pattern: '^/(api|v2|userapi)/', fault: 'status-503' } }),
    apiUp: () => admin(simUrl, 'faults', { clear: true }),
    storm429: (times) => admin(simUrl, 'faults', { force: { pattern: '^/(api|v2|userapi)/', fault: 'status-429', times } }),
    killReceiver: async () => {
      state.receiver.child.kill('SIGKILL');
      await state.receiver.done;
      state.receiver = undefined;
    },
    restartReceiver: () => startReceiver(),
    crashAt: (point) => {
      state.crashAt = point;
    },
    // Records enough for a new identity model version to regroup fans: copies of the ticketing
    // users (a fifth of the records: a retrain is due) under new ids and another last name (as
    // test/warehouse/identity-keys.test.ts); the hour's run loads them under the model in force,
    // then `identity train` and `--apply` (after the run).
    retrain: async () => {
      const users = await admin(simUrl, 'ticketing/users');
      const records = await withDuckDB(async (db) => {
        await db.run(`attach '${join(dataDir, 'warehouse.duckdb')}' as season (read_only)`);
        return Number((await db.rows('select count(*) as n from season.intermediate.int_identity_records'))[0].n);
      });
      const firstId = Math.max(...users.map((user) => Number(user.id))) + 1;
      const items = Array.from({ length: Math.ceil(records / 5) }, (_, at) => ({ ...users[at % users.length], id: firstId + at, name_last: ['Berg', 'Dahl', 'Lie', 'Moen'][at % 4], last_update: new Date(clock.nowMs).toISOString() }));
      await admin(simUrl, 'ticketing/users/verbatim', { items, lastUpdate: new Date(clock.nowMs).toISOString() });
      state.retrainAfterRun = true;
    },
    badJournalLine: async () => {
      // What a failed append (disk full) leaves: part of a line, onto which the running receiver glues its next
      // entry (a receiver started anew writes a segment of its own), so the receiver must be idle and alive.
      await admin(simUrl, 'push?idle=true');
      const journal = join(dataDir, 'listen', 'journal');
      appendFileSync(join(journal, readdirSync(journal).sort().at(-1)), '{"at":"2026-');
      // A change glued onto it, and one after: a line's time comes from a readable line after it (the
      // segment's mtime, the alternative, is the machine's, not the season's).
      for (let change = 0; change < 2; change++) await EVENTS.changeProfiles(1), await admin(simUrl, 'push?idle=true');
    },
  };

  const startReceiver = async () => {
    const receiver = fanlake(['listen', '--port', state.port], seasonEnv);
    const [, url] = await receiver.waitFor(/^listening on (http:\/\/\S+)$/m);
    // The same port again after a restart: the platform's retries of what it could not deliver reach it.
    state.port = new URL(url).port;
    state.receiver = receiver;
  };

  const runs = [];
  /** Record keys (system:record_id) whose fan_id the applied retrains listed as moving. */
  const retrainMoved = new Set();
  await startReceiver();
  try {
    for (const step of steps) {
      const hourMs = startMs + step.hour * HOUR_MS;
      await clock.set(hourMs);
      state.changedThisHour = new Set();
      for (const [name, argument] of step.events) {
        if (!EVENTS[name]) throw new Error(`the season has no event ${name}`);
        await EVENTS[name](argument);
      }
      await admin(simUrl, 'push?idle=true');
      if (step.run === 'none') continue;
      const runAt = await clock.set(hourMs + RUN_AFTER_MS);
      // The receiver's clock follows the file; its heartbeat in season time says it took the jump.
      if (state.receiver) await whenFile(join(dataDir, 'listen'), () => heartbeatAt() >= runAt);
      const crashAt = state.crashAt;
      state.crashAt = undefined;
      const result = await fanlake(SEASON_RUN, crashAt ? { ...seasonEnv, FANLAKE_TEST_CRASH_AT: crashAt } : seasonEnv).done;
      const ended = result.signal === 'SIGKILL' ? 'killed' : result.code === 0 ? 'ok' : result.code === 1 ? 'failed' : `exit ${result.code}`;
      if (ended !== step.run) throw new Error(`season hour ${step.hour}: the run ended ${ended}, not ${step.run}:\n${stepsOf(result.stdout)}\n${result.stderr.slice(-3000)}`);
      const summary = ended === 'killed' ? undefined : JSON.parse(result.stdout);
      const record = { hour: step.hour, at: new Date(runAt).toISOString(), ended, wallMs: result.wallMs, cpuMs: result.cpuMs, requests: requestsOf(summary), engagement: engagementMode(summary), changedProfiles: [...state.changedThisHour], disk: diskOf(dataDir) };
      if (state.retrainAfterRun && ended === 'ok') {
        state.retrainAfterRun = false;
        record.retrain = await retrain(seasonEnv);
        for (const key of record.retrain.listed) retrainMoved.add(key);
      }
      runs.push(record);
      if (runs.length === 1) await snapshotIdentity(dataDir, workDir);
      onStep?.(record);
    }
  } finally {
    if (state.receiver) {
      state.receiver.child.kill('SIGTERM');
      await state.receiver.done;
    }
  }
  return { runs, dataDir, workDir, env: commonEnv, simUrl, changedProfiles: [...state.changedProfiles], retrainMoved: [...retrainMoved] };
}

/**
 * `identity train`, which must list records whose fan_id would move, then `identity train
 * --apply`; returns the records listed (the file the preview wrote) and what each command said.
 */
async function retrain(env) {
  const trained = await fanlake(['identity', 'train'], env).done;
  if (trained.code !== 0) throw new Error(`identity train failed: ${trained.stderr.slice(-3000)}`);
  const file = /every record that would move: (\S+)/.exec(trained.stdout)?.[1];
  const counted = /(\d+) of \d+ records' fan_id would move/.exec(trained.stdout)?.[1];
  if (!file || !counted) throw new Error(`identity train listed no records that would move:\n${trained.stdout}`);
  const listed = readFileSync(file, 'utf8').trim().split('\n').slice(1).map((line) => line.split(',')[0]);
  if (listed.length === 0 || listed.length !== Number(counted)) throw new Error(`identity train said ${counted} records would move and listed ${listed.length} in ${file}: the retrain must change something`);
  const applied = await fanlake(['identity', 'train', '--apply'], env).done;
  if (applied.code !== 0) throw new Error(`identity train --apply failed: ${applied.stderr.slice(-3000)}`);
  return { listed, trained: trained.stdout, applied: applied.stdout, cpuMs: trained.cpuMs + applied.cpuMs };
}

/** A run's steps, their status and what failed, one line each; the output itself when it is no summary. */
function stepsOf(stdout) {
  try {
    return JSON.parse(stdout)
      .steps.map((step) => `${step.step}: ${step.status} ${JSON.stringify([...step.notes, ...step.results.filter((r) => !['ok', 'pass', 'unchanged'].includes(r.status))])}`)
      .join('\n');
  } catch {
    return stdout.slice(-3000);
  }
}

function requestsOf(summary) {
  const extract = summary?.steps.find((step) => step.step === 'extract');
  return extract ? extract.results.reduce((sum, result) => sum + (result.counts?.requests ?? 0), 0) : 0;
}

/** How the run read the customer profiles: its note (full snapshot and why, or re-read), or skipped. */
function engagementMode(summary) {
  const extract = summary?.steps.find((step) => step.step === 'extract');
  const profiles = extract?.results.find((result) => result.name === 'engagement.customer_profiles');
  const note = extract?.notes.find((line) => line.includes('customer_profiles') || line.includes('customer profile'));
  return profiles ? `${profiles.status}${profiles.reason ? `: ${profiles.reason}` : ''}${note ? ` (${note})` : ''}` : undefined;
}

/** Columns that say when a build saw a row, not what it holds (int_identity_record_changes' changed_at, the identity fields' read_at): a rebuild differs there by design. */
const BUILD_TIME_COLUMNS = ['changed_at', 'read_at'];

/**
 * Which columns of a model's table a rebuild must reproduce, as `(relation, columns) => kept`:
 * all but the build-time columns and the model's lineage columns (lineage.json in `dataDir`),
 * which keep the read that last changed a row (a re-read that changed nothing builds nothing)
 * where a rebuild takes the newest.
 */
export function rebuiltColumns(dataDir) {
  const lineage = new Map(JSON.parse(readFileSync(join(dataDir, 'lineage.json'), 'utf8')).models.map((model) => [model.relation, model.lineageColumns ?? []]));
  return (relation, columns) => columns.filter((column) => !BUILD_TIME_COLUMNS.includes(column) && !(lineage.get(relation) ?? []).includes(column));
}

const IDENTITY_TABLES = {
  ticketing_user: 'raw.ticketing_users',
  ticketing_member: 'raw.ticketing_members',
  engagement_customer_profile: 'raw.engagement_customer_profiles',
  engagement_person: 'raw.engagement_people',
};

/** Each identity record's value and fan after the first run, kept to tell which fans must keep their fan_id. */
async function snapshotIdentity(dataDir, workDir) {
  await withDuckDB(async (db) => {
    await db.run(`attach '${join(dataDir, 'warehouse.duckdb')}' as season (read_only)`);
    await db.run(`attach '${join(workDir, 'baseline.duckdb')}' as baseline`);
    await db.run(`create table baseline.links as select fan_id, system, record_id from season.marts.fan_identity_links`);
    await db.run(`create table baseline.records as ${recordValues('season')}`);
  });
}

/** One row per identity record: its system, id and a hash of its raw values (lineage aside). */
function recordValues(database) {
  return Object.entries(IDENTITY_TABLES)
    .map(([system, table]) => `select '${system}' as system, cast(id as varchar) as record_id, hash(to_json(t)) as value from (select * exclude (_run_id, _extracted_at${table.startsWith('raw.engagement') ? ', _vanished_at' : ''}) from ${database}.${table}${table.startsWith('raw.engagement') ? ' where _vanished_at is null' : ''}) as t`)
    .join(' union all ');
}

async function withDuckDB(work) {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    return await work({
      run: (sql) => connection.run(sql),
      rows: async (sql) => (await connection.runAndReadAll(sql)).getRowObjectsJson(),
    });
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/**
 * The season's end, compared: a fresh full load of the source into a new data directory, and
 * a full rebuild of a copy of the season's warehouse. Returns the differences (each empty when
 * the season lost and doubled nothing) and the figures behind them.
 */
export async function compareSeason({ dataDir, workDir, env, simUrl, retrainMoved = [] }) {
  const freshDir = join(workDir, 'fresh');
  const rebuiltDir = join(workDir, 'rebuilt');
  mkdirSync(rebuiltDir, { recursive: true });
  const fresh = await fanlake(SEASON_RUN, { ...env, FANLAKE_DATA_DIR: freshDir }).done;
  if (fresh.code !== 0) throw new Error(`the fresh full load failed: ${fresh.stderr.slice(-3000)}`);
  for (const name of ['warehouse.duckdb', 'warehouse.duckdb.wal']) if (existsSync(join(dataDir, name))) copyFileSync(join(dataDir, name), join(rebuiltDir, name));
  const rebuilt = await fanlake(['build', '--full-refresh'], { ...env, FANLAKE_DATA_DIR: rebuiltDir }).done;
  if (rebuilt.code !== 0) throw new Error(`build --full-refresh of the season's warehouse failed: ${rebuilt.stderr.slice(-3000)}`);

  const liveProfiles = (await admin(simUrl, 'engagement/customer_profiles')).map((profile) => String(profile.id)).sort();
  return withDuckDB(async (db) => {
    await db.run(`attach '${join(dataDir, 'warehouse.duckdb')}' as season (read_only)`);
    await db.run(`attach '${join(freshDir, 'warehouse.duckdb')}' as fresh (read_only)`);
    await db.run(`attach '${join(rebuiltDir, 'warehouse.duckdb')}' as rebuilt (read_only)`);
    await db.run(`attach '${join(workDir, 'baseline.duckdb')}' as baseline (read_only)`);
    const columns = async (database, schema, table) =>
      (await db.rows(`select column_name from duckdb_columns() where database_name = '${database}' and schema_name = '${schema}' and table_name = '${table}' order by column_index`)).map((row) => row.column_name);
    const relations = async (database, schemas) =>
      (await db.rows(`select schema_name, table_name from duckdb_tables() where database_name = '${database}' and schema_name in (${schemas.map((s) => `'${s}'`).join(', ')}) union all select schema_name, view_name from duckdb_views() where database_name = '${database}' and schema_name in (${schemas.map((s) => `'${s}'`).join(', ')}) and not internal order by 1, 2`)).map((row) => [row.schema_name, row.table_name]);
    /** Rows in one relation and not the other, each way, on the given columns (EXCEPT ALL: duplicates count). */
    const difference = async (left, right, cols, leftWhere = 'true', rightWhere = 'true') => {
      const list = cols.map((c) => `"${c}"`).join(', ');
      const [row] = await db.rows(
        `select (select count(*) from (select ${list} from ${left} where ${leftWhere} except all select ${list} from ${right} where ${rightWhere})) as only_left, (select count(*) from (select ${list} from ${right} where ${rightWhere} except all select ${list} from ${left} where ${leftWhere})) as only_right`,
      );
      return { onlySeason: Number(row.only_left), onlyOther: Number(row.only_right) };
    };

    const raw = {};
    for (const [, table] of await relations('fresh', ['raw'])) {
      const freshColumns = await columns('fresh', 'raw', table);
      const seasonColumns = new Set(await columns('season', 'raw', table));
      const shared = freshColumns.filter((c) => seasonColumns.has(c) && !['_run_id', '_extracted_at', '_vanished_at'].includes(c));
      const live = seasonColumns.has('_vanished_at') ? '_vanished_at is null' : 'true';
      const found = await difference(`season.raw.${table}`, `fresh.raw.${table}`, shared, live);
      if (found.onlySeason + found.onlyOther > 0 || seasonColumns.size === 0) raw[table] = seasonColumns.size === 0 ? 'missing in the season' : found;
    }
    const seasonProfiles = (await db.rows(`select cast(id as varchar) as id from season.raw.engagement_customer_profiles where _vanished_at is null order by 1`)).map((row) => row.id);
    const profilesAgainstTruth = { missing: liveProfiles.filter((id) => !seasonProfiles.includes(id)), extra: seasonProfiles.filter((id) => !liveProfiles.includes(id)) };

    const models = {};
    const compare = rebuiltColumns(dataDir);
    for (const [schema, table] of await relations('rebuilt', ['staging', 'intermediate', 'marts'])) {
      const compared = compare(`${schema}.${table}`, await columns('rebuilt', schema, table));
      const found = await difference(`season.${schema}.${table}`, `rebuilt.${schema}.${table}`, compared);
      if (found.onlySeason + found.onlyOther > 0) models[`${schema}.${table}`] = found;
    }

    const figures = {};
    for (const [relation, sum] of [['marts.revenue_monthly', 'sum(revenue)'], ['marts.fct_season_tickets', 'count(*)']]) {
      const [schema, table] = relation.split('.');
      const cols = (await columns('fresh', schema, table)).filter((c) => !/fan_id$/.test(c));
      figures[relation] = {
        ...(await difference(`season.${relation}`, `fresh.${relation}`, cols)),
        season: (await db.rows(`select ${sum} as v from season.${relation}`))[0].v,
        fresh: (await db.rows(`select ${sum} as v from fresh.${relation}`))[0].v,
      };
    }

    // A fan whose records neither changed, nor were joined by others, nor were listed by an applied retrain keeps its fan_id.
    await db.run(`create temporary table retrain_moved (record_key varchar)`);
    for (let at = 0; at < retrainMoved.length; at += 1000) {
      await db.run(`insert into retrain_moved values ${retrainMoved.slice(at, at + 1000).map((key) => `('${key.replaceAll("'", "''")}')`).join(', ')}`);
    }
    const movedFans = await db.rows(`
      with end_records as (${recordValues('season')}),
      changed as (
          select * from (
              select system, record_id from baseline.records
              except
              select system, record_id from baseline.records join end_records using (system, record_id, value)
          )
          union
          select split_part(record_key, ':', 1), substr(record_key, length(split_part(record_key, ':', 1)) + 2) from retrain_moved
      ),
      start_fans as (
          select links.fan_id, list_sort(list(links.system || ':' || links.record_id)) as records
          from baseline.links as links
          left join changed on changed.system = links.system and changed.record_id = links.record_id
          group by links.fan_id
          having count(changed.record_id) = 0
      ),
      end_fans as (
          select fan_id, list_sort(list(system || ':' || record_id)) as records
          from season.marts.fan_identity_links group by fan_id
      )
      select start_fans.fan_id as was, end_fans.fan_id as now
      from start_fans
      inner join end_fans on end_fans.records = start_fans.records
      where end_fans.fan_id <> start_fans.fan_id
    `);
    const [stableFans] = await db.rows(`select count(distinct fan_id) as n from baseline.links`);
    const [listedAtStart] = await db.rows(`select count(*) as n from baseline.links join retrain_moved on record_key = links.system || ':' || links.record_id`);
    return { raw, profilesAgainstTruth, models, figures, movedFans, fansAtStart: Number(stableFans.n), retrainMovedAtStart: Number(listedAtStart.n), disk: { season: diskOf(dataDir), fresh: diskOf(freshDir) } };
  });
}
