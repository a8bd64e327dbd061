import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { acquireWriterLock, LOCK_FILE } from '../../src/core/writer-lock.js';
import { logEntrySchema, type LogEntry } from '../../src/schedule/schedule-log.js';
import type { Simulator } from '../../src/simulator/simulator.js';
import { clockFile, type ClockFile } from '../helpers/clock-file.js';
import { runCli, spawnCli, tempDataDir, watch, type WatchedProcess } from '../helpers/cli.js';
import { attachmentsOf, startSmtpReceiver, startWebhookReceiver, subjectOf, textOf } from '../helpers/receivers.js';
import { sharedWarehouse } from '../helpers/shared-warehouse.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { cliEnv } from '../warehouse/identity-fixture.js';

/** The simulator's options (those of startTestSimulator): the shared warehouse is built from the same data. */
const SIMULATOR = { scale: 0.02, seed: 42 };

let sim: Simulator;
beforeAll(async () => {
  sim = await startTestSimulator(SIMULATOR);
});
afterAll(() => sim.close());

const running: WatchedProcess[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const process of running.splice(0)) if (process.child.exitCode === null) process.child.kill('SIGKILL');
  for (const close of closers.splice(0)) await close();
});

interface Setup {
  cwd: string;
  dataDir: string;
  env: Record<string, string>;
}

/** A working directory with `fanlake.config.json` holding `schedules`, and an empty data dir. */
function setup(schedules: unknown, env: Record<string, string> = {}, dataDir = tempDataDir()): Setup {
  const cwd = mkdtempSync(join(tmpdir(), 'fanlake-schedule-'));
  writeFileSync(join(cwd, 'fanlake.config.json'), JSON.stringify({ schedules }));
  return { cwd, dataDir, env: { ...cliEnv(sim, dataDir), ...env } };
}

/**
 * A copy of the warehouse of this file's simulator, built once per test run: a job that runs
 * the whole pipeline on it extracts and builds what changed, as a scheduled job on a club's
 * data dir does, instead of everything from nothing.
 */
function builtDataDir(): Promise<string> {
  return sharedWarehouse({ simulator: SIMULATOR });
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/*
 * Every scheduler here runs under a clock of its own (test/helpers/season-clock.mjs): a test
 * moves it to a slot instead of waiting for one, and the scheduler's sleep ends at the move.
 * The clocks start ahead of the machine's time, later than any cursor of the shared warehouse.
 */

/** A whole hour at least an hour ahead of the machine's time. */
function hourAhead(): number {
  return Math.ceil(Date.now() / HOUR_MS) * HOUR_MS + HOUR_MS;
}

/** Noon (UTC) of a day at least half a day ahead: midnight slots are twelve hours away either side. */
function noonAhead(): number {
  return Math.ceil(Date.now() / DAY_MS) * DAY_MS + 12 * HOUR_MS;
}

/**
 * How long before its slot a scheduler's clock starts: the scheduler must read its start time
 * before the slot, and this is longer than any test may take (the clock runs at the machine's
 * pace until the test moves it to the slot).
 */
const SLOT_MARGIN_MS = 30 * 60_000;

/** Hourly on the hour (UTC and Europe/Oslo alike): the schedule of the tests of when jobs run. */
const HOURLY = '0 * * * *';

/** Daily at midnight (UTC): the schedule of the tests of what a job does, see {@link dueAtStart}. */
const DAILY = '0 0 * * *';

/**
 * Makes a {@link DAILY} schedule's slot of the clock's day due as the scheduler starts: the log
 * says it last ran the day before, so the scheduler catches up on the day's slot at once (as
 * after any downtime) and the next slot is half a day away. Tests of what a job does then wait
 * for no slot.
 */
function dueAtStart(dataDir: string, schedule: string, clock: ClockFile): void {
  const yesterday = new Date(Math.floor(clock.now() / DAY_MS) * DAY_MS - DAY_MS).toISOString();
  mkdirSync(join(dataDir, 'schedule'), { recursive: true });
  writeFileSync(join(dataDir, 'schedule', 'log.ndjson'), `${JSON.stringify({ schedule, slot: yesterday, start: yesterday, end: yesterday, outcome: 'ok', runId: '20260101T000000Z-abcdef' })}\n`);
}

/**
 * Two tiny report definitions; fan-count declares personal data. A job's report step renders
 * these rather than every shipped report, which test/reports/ renders.
 */
function reportDefinitions(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fanlake-reports-'));
  const report = (title: string, personalData: boolean, sql: string, label: string) =>
    `---\ntitle: ${title}\npersonalData: ${personalData}\n---\n\n\`\`\`sql figures\n${sql}\n\`\`\`\n\n\`\`\`figures\nquery: figures\nitems:\n  - { field: n, label: ${label}, format: integer }\n\`\`\`\n`;
  writeFileSync(join(dir, 'fan-count.md'), report('Fans', true, 'select count(*) as n from marts.dim_fan', 'Fans'));
  writeFileSync(join(dir, 'match-count.md'), report('Matches', false, 'select count(*) as n from marts.match_summary', 'Matches'));
  return dir;
}

/** `fanlake schedule` following `clock`. */
function scheduler(s: Setup, clock: ClockFile): WatchedProcess {
  const process = watch(spawnCli(['schedule'], { ...s.env, ...clock.env }, s.cwd));
  running.push(process);
  return process;
}

function log(dataDir: string): LogEntry[] {
  const path = join(dataDir, 'schedule', 'log.ndjson');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').trim().split('\n').map((line) => logEntrySchema.parse(JSON.parse(line)));
}

describe('fanlake schedule: configuration', () => {
  it('exits 2 without schedules, and names the schedule and the problem of a bad one', async () => {
    const none = setup(undefined);
    writeFileSync(join(none.cwd, 'fanlake.config.json'), '{}');
    const empty = await runCli(['schedule'], none.env, { cwd: none.cwd });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('no schedules configured');

    const badCron = setup([{ name: 'nightly', cron: '61 6 * * *' }]);
    const cron = await runCli(['schedule', '--list'], badCron.env, { cwd: badCron.cwd });
    expect(cron.code).toBe(2);
    expect(cron.stderr).toMatch(/schedule nightly: cron: not a cron expression \(.*minute.*\)/);

    const badZone = setup([{ name: 'weekly', cron: '0 6 * * 1', timeZone: 'Europe/Atlantis' }]);
    expect((await runCli(['schedule', '--list'], badZone.env, { cwd: badZone.cwd })).stderr).toContain('schedule weekly: timeZone: not an IANA time zone');

    const typo = setup([{ name: 'weekly', cron: '0 6 * * 1', job: 'reports', reports: ['match-dya'] }]);
    const unknown = await runCli(['schedule'], typo.env, { cwd: typo.cwd });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('schedule weekly: unknown report match-dya');

    const noSmtp = setup([{ name: 'mailed', cron: '0 6 * * 1', deliver: { email: true } }]);
    const mailed = await runCli(['schedule'], noSmtp.env, { cwd: noSmtp.cwd });
    expect(mailed.code).toBe(2);
    expect(mailed.stderr).toContain('schedule mailed: delivers e-mail but FANLAKE_SMTP_HOST, FANLAKE_SMTP_FROM');
  });

  it('--list prints the next three slots in the schedule\'s time zone, across both DST changes', async () => {
    const s = setup([
      { name: 'night', cron: '30 2 * * *', timeZone: 'Europe/Berlin' },
      { name: 'morning', cron: '0 6 * * *', timeZone: 'Europe/Berlin' },
    ]);
    const spring = await runCli(['schedule', '--list', '--from', '2026-03-28T00:00:00Z'], s.env, { cwd: s.cwd });
    expect(spring.code, spring.stderr).toBe(0);
    // 02:30 does not exist on 29 March in Berlin: that night's slot runs once, at 03:00 CEST.
    expect(spring.stdout).toMatch(/^night .* 2026-03-28 02:30 CET, 2026-03-29 03:00 CEST, 2026-03-30 02:30 CEST$/m);
    expect(spring.stdout).toMatch(/^morning .* 2026-03-28 06:00 CET, 2026-03-29 06:00 CEST, 2026-03-30 06:00 CEST$/m);
    // 02:30 happens twice on 25 October: the slot runs once.
    const autumn = await runCli(['schedule', '--list', '--from', '2026-10-24T12:00:00Z'], s.env, { cwd: s.cwd });
    expect(autumn.stdout).toMatch(/^night .* 2026-10-25 02:30 CEST, 2026-10-26 02:30 CET, 2026-10-27 02:30 CET$/m);
  });
});

describe('fanlake schedule: jobs', () => {
  it('runs jobs at their slot, logs them, delivers digests by e-mail and webhook, attaches personal data only where allowed, and stops on SIGTERM', { timeout: 180_000 }, async () => {
    const smtp = await startSmtpReceiver();
    // The second job's webhook keeps failing: recorded, and its report stays on disk.
    const hook = await startWebhookReceiver([200, 500]);
    closers.push(smtp.close, hook.close);
    const slot = hourAhead();
    const clock = clockFile(slot - SLOT_MARGIN_MS);
    const cron = HOURLY;
    const s = setup(
      [
        { name: 'soon', cron, timeZone: 'Europe/Oslo', deliver: { email: true, webhook: true } },
        { name: 'private', cron, job: 'reports', personalData: true, deliver: { email: { to: ['board@club.example'] }, webhook: true } },
      ],
      {
        FANLAKE_SMTP_HOST: '127.0.0.1',
        FANLAKE_SMTP_PORT: String(smtp.port),
        FANLAKE_SMTP_FROM: 'fanlake@club.example',
        FANLAKE_SMTP_TO: 'analysts@club.example',
        FANLAKE_WEBHOOK_URL: hook.url,
        FANLAKE_DELIVERY_MAX_ATTEMPTS: '2',
        FANLAKE_DELIVERY_RETRY_SECONDS: '0.05',
      },
      await builtDataDir(),
    );
    s.env.FANLAKE_REPORT_DEFINITIONS = reportDefinitions();
    const process = scheduler(s, clock);
    // Once it says so, the scheduler sleeps towards its first slot: the clock moves there.
    await process.waitFor(/scheduler started/, 'stderr');
    clock.set(slot);

    const first = await process.waitFor(/^.* soon slot .*: (\w+) in .*$/m, 'stdout');
    expect(first[1], (process.stdout + process.stderr)).toBe('ok');
    const second = await process.waitFor(/^.* private slot .*: (\w+) in .*$/m, 'stdout');
    expect(second[1], (process.stdout + process.stderr)).toBe('ok');
    process.child.kill('SIGTERM');
    expect((await process.done).code).toBe(0);

    const [soon, privately] = log(s.dataDir);
    expect(soon).toMatchObject({ schedule: 'soon', slot: new Date(slot).toISOString(), outcome: 'ok', deliveries: [{ channel: 'email', status: 'sent' }, { channel: 'webhook', status: 'sent' }] });
    // Fired for the slot the clock moved to, not before it.
    expect(Date.parse(soon!.start)).toBeGreaterThanOrEqual(slot);
    // The same slot: 'private' waited its turn while 'soon' ran.
    expect(privately!.slot).toBe(soon!.slot);
    expect(Date.parse(privately!.start)).toBeGreaterThanOrEqual(Date.parse(soon!.end));
    expect(soon!.runId).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{6}$/);
    expect(privately).toMatchObject({ schedule: 'private', outcome: 'ok', deliveries: [{ channel: 'email', status: 'sent' }, { channel: 'webhook', status: 'failed', attempts: 2, error: 'webhook answered HTTP 500' }] });

    const [publicMail, privateMail] = smtp.mails;
    expect(publicMail!.to).toEqual(['analysts@club.example']);
    expect(subjectOf(publicMail!.raw)).toMatch(/^fanlake soon: fan-count, match-count \(/);
    // Each job rendered once: the first rendering is the one job 'soon' delivered.
    const firstDigest = (report: string) => {
      const [oldest] = readdirSync(join(s.dataDir, 'reports', report)).filter((name) => name !== 'latest').sort();
      return readFileSync(join(s.dataDir, 'reports', report, oldest!, 'summary.md'), 'utf8').trim();
    };
    const fanDigest = firstDigest('fan-count');
    const matchDigest = firstDigest('match-count');
    expect(textOf(publicMail!.raw)).toContain(fanDigest);
    expect(textOf(publicMail!.raw)).toContain(matchDigest);
    // fan-count shows personal data: without personalData: true only its digest goes out.
    expect(attachmentsOf(publicMail!.raw)).toEqual([expect.stringMatching(/^match-count-.*\.html$/)]);
    expect(textOf(publicMail!.raw)).toContain('stays on the server');
    expect(privateMail!.to).toEqual(['board@club.example']);
    expect(attachmentsOf(privateMail!.raw).sort()).toEqual([expect.stringMatching(/^fan-count-/), expect.stringMatching(/^match-count-/)]);

    expect(hook.posts).toHaveLength(3);
    expect(hook.posts[0]!.body.text).toContain('*fanlake soon: fan-count, match-count');
    expect(hook.posts[0]!.body.text).toContain(matchDigest);
    expect(hook.posts[0]!.body.text).toMatch(/report: .*match-count.*index\.html/);
    expect(hook.posts[0]!.body.text).not.toMatch(/report: .*fan-count/);
    // The failed delivery lost nothing: the rendering it was about is on disk.
    expect(existsSync(join(s.dataDir, 'reports', 'fan-count', 'latest', 'index.html'))).toBe(true);
    // The webhook URL carries a token: it is masked wherever fanlake writes.
    expect((process.stdout + process.stderr)).not.toContain('secret-token-123');
    expect(readFileSync(join(s.dataDir, 'schedule', 'log.ndjson'), 'utf8')).not.toContain('secret-token-123');
    expect(existsSync(join(s.dataDir, LOCK_FILE))).toBe(false);
  });

  it('never overlaps a writer started by hand: the slot counts as missed, then runs once for all the slots it missed', { timeout: 180_000 }, async () => {
    const slot = hourAhead();
    const clock = clockFile(slot - SLOT_MARGIN_MS);
    const s = setup([{ name: 'busy', cron: HOURLY, job: 'reports' }], { FANLAKE_SCHEDULE_LOCK_WAIT: '1', FANLAKE_REPORT_DEFINITIONS: reportDefinitions() }, await builtDataDir());
    const lock = await acquireWriterLock(s.dataDir, { command: 'extract by hand' });
    const process = scheduler(s, clock);
    await process.waitFor(/scheduler started/, 'stderr');
    clock.set(slot);

    await process.waitFor(/busy slot .*: missed/, 'stdout');
    expect((process.stdout + process.stderr)).toContain('waiting for extract by hand');
    // Two more slots pass while the lock is held: the next try serves all three, and is the only one logged.
    clock.set(slot + 2 * HOUR_MS);
    await process.waitFor(/busy: slot .* \(serving 3 slots at once\) starts/, 'stderr');
    const released = clock.now();
    await lock.release();

    await process.waitFor(/busy slot .*: (ok|failed) in/, 'stdout');
    process.child.kill('SIGTERM');
    expect((await process.done).code).toBe(0);

    const entries = log(s.dataDir);
    expect(entries.map((e) => e.outcome)).toEqual(['missed', 'ok']);
    expect(entries[0]).toMatchObject({ slot: new Date(slot).toISOString() });
    expect(entries[0]!.error).toContain('extract by hand');
    expect(entries[1]).toMatchObject({ slot: new Date(slot + 2 * HOUR_MS).toISOString(), slots: 3 });
    // The job starts once it has the lock.
    expect(Date.parse(entries[1]!.start)).toBeGreaterThanOrEqual(released);
  });

  it('catches up once on slots missed while the scheduler was down', { timeout: 180_000 }, async () => {
    const s = setup([{ name: 'hourly', cron: HOURLY, job: 'reports' }], { FANLAKE_REPORT_DEFINITIONS: reportDefinitions() }, await builtDataDir());
    const thisHour = hourAhead();
    // A second past the hour: the slots since the last served one are due at the start, the next an hour away.
    const clock = clockFile(thisHour + 1_000);
    const served = new Date(thisHour - 3 * HOUR_MS).toISOString();
    mkdirSync(join(s.dataDir, 'schedule'), { recursive: true });
    writeFileSync(join(s.dataDir, 'schedule', 'log.ndjson'), `${JSON.stringify({ schedule: 'hourly', slot: served, start: served, end: served, outcome: 'ok', runId: '20260101T000000Z-abcdef' })}\n`);
    const process = scheduler(s, clock);

    await process.waitFor(/hourly slot .*: ok in/, 'stdout');
    process.child.kill('SIGTERM');
    expect((await process.done).code).toBe(0);

    const entries = log(s.dataDir);
    expect(entries).toHaveLength(2);
    expect(entries[1]).toMatchObject({ slot: new Date(thisHour).toISOString(), slots: 3, outcome: 'ok' });
  });

  it('SIGTERM during a job lets the running step finish, skips the rest and exits 0 with the lock released', async () => {
    const s = setup([{ name: 'stopme', cron: DAILY }]);
    const clock = clockFile(noonAhead());
    dueAtStart(s.dataDir, 'stopme', clock);
    const process = scheduler(s, clock);

    await process.waitFor(/stopme: slot .* starts/, 'stderr');
    process.child.kill('SIGTERM');
    expect((await process.done).code, (process.stdout + process.stderr)).toBe(0);

    expect((process.stdout + process.stderr)).toMatch(/stopme: \w+ skipped \(stopped\)/);
    const [, entry] = log(s.dataDir);
    expect(entry).toMatchObject({ schedule: 'stopme', outcome: 'stopped' });
    expect(existsSync(join(s.dataDir, LOCK_FILE))).toBe(false);
  });

  it('a second SIGTERM aborts the running job: exit 1, logged as aborted, the lock released, the warehouse as before', async () => {
    // A slow simulator keeps the extract busy while both signals arrive.
    const slow = await startTestSimulator({ latencyMs: 300 });
    closers.push(() => slow.close());
    const s = setup([{ name: 'abortme', cron: DAILY }]);
    Object.assign(s.env, cliEnv(slow, s.dataDir));
    const clock = clockFile(noonAhead());
    dueAtStart(s.dataDir, 'abortme', clock);
    const process = scheduler(s, clock);

    await process.waitFor(/abortme: slot .* starts/, 'stderr');
    process.child.kill('SIGTERM');
    await process.waitFor(/SIGTERM: stopping once abortme's current step is done/, 'stderr');
    process.child.kill('SIGTERM');
    expect((await process.done).code, (process.stdout + process.stderr)).toBe(1);

    expect(log(s.dataDir).slice(1).map((e) => [e.schedule, e.outcome])).toEqual([['abortme', 'aborted']]);
    expect(existsSync(join(s.dataDir, LOCK_FILE))).toBe(false);
    expect(existsSync(join(s.dataDir, 'warehouse.duckdb'))).toBe(false);
  });

  it('a failed job alerts every destination; a delivery that keeps failing is retried, recorded, and shown by status', async () => {
    const smtp = await startSmtpReceiver();
    const hook = await startWebhookReceiver([500]);
    closers.push(smtp.close, hook.close);
    const dataDir = tempDataDir();
    const s = setup([{ name: 'broken', cron: DAILY, deliver: { email: { to: ['ops@club.example'] }, webhook: true } }], {
      // Nothing listens there: the extract fails.
      FANLAKE_DATA_DIR: dataDir,
      FANLAKE_TICKETING_URL: 'http://127.0.0.1:9',
      FANLAKE_TICKETING_TOKEN: 'any-token',
      FANLAKE_ENGAGEMENT_URL: '',
      FANLAKE_HTTP_MAX_ATTEMPTS: '1',
      FANLAKE_SMTP_HOST: '127.0.0.1',
      FANLAKE_SMTP_PORT: String(smtp.port),
      FANLAKE_SMTP_FROM: 'fanlake@club.example',
      FANLAKE_WEBHOOK_URL: hook.url,
      FANLAKE_DELIVERY_MAX_ATTEMPTS: '3',
      FANLAKE_DELIVERY_RETRY_SECONDS: '0.05',
    });
    s.dataDir = dataDir;
    const clock = clockFile(noonAhead());
    dueAtStart(s.dataDir, 'broken', clock);
    const process = scheduler(s, clock);

    await process.waitFor(/broken slot .*: failed in/, 'stdout');
    process.child.kill('SIGTERM');
    expect((await process.done).code).toBe(0);

    const [, entry] = log(s.dataDir);
    expect(entry!.outcome).toBe('failed');
    expect(entry!.error).toMatch(/^extract: ticketing\.\w+: /);
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]!.to).toEqual(['ops@club.example']);
    expect(subjectOf(smtp.mails[0]!.raw)).toMatch(/^fanlake broken FAILED: extract: ticketing\./);
    expect(smtp.mails[0]!.raw).toContain(`run id: ${entry!.runId}`);
    expect(hook.posts).toHaveLength(3);
    expect(hook.posts[0]!.body.text).toContain(`run id: ${entry!.runId}`);
    expect(entry!.deliveries).toEqual([
      { channel: 'email', status: 'sent', attempts: 1 },
      { channel: 'webhook', status: 'failed', attempts: 3, error: 'webhook answered HTTP 500' },
    ]);

    const status = await runCli(['status'], s.env, { cwd: s.cwd });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^broken\s+\S+ \S+ \S+\s+failed: extract: .*email sent, webhook failed \(webhook answered HTTP 500\)\s+\d{4}-\d\d-\d\d /m);
    expect(status.stdout).toMatch(/^raw runs +\d+\.\d [KMG]B +loaded runs older than 30 days/m);
  });

  it('a writer lock that cannot be taken for another reason than another writer fails the job and alerts', async () => {
    const hook = await startWebhookReceiver();
    closers.push(hook.close);
    const s = setup([{ name: 'nightly', cron: DAILY, deliver: { webhook: true } }], { FANLAKE_WEBHOOK_URL: hook.url });
    // A directory where the lock file goes: no writer holds it, and nothing can take it.
    mkdirSync(join(s.dataDir, LOCK_FILE), { recursive: true });
    const clock = clockFile(noonAhead());
    dueAtStart(s.dataDir, 'nightly', clock);
    const process = scheduler(s, clock);

    await process.waitFor(/nightly slot .*: failed in/, 'stdout');
    process.child.kill('SIGTERM');
    expect((await process.done).code).toBe(0);

    const [, entry] = log(s.dataDir);
    expect(entry!.outcome).toBe('failed');
    expect(entry!.error).toMatch(/^cannot take the writer lock: /);
    expect(hook.posts).toHaveLength(1);
    expect(hook.posts[0]!.body.text).toContain('cannot take the writer lock');
    expect(entry!.deliveries).toEqual([{ channel: 'webhook', status: 'sent', attempts: 1 }]);
  });
});
