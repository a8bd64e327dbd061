import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { logEntrySchema, receiverLogEntrySchema } from '../../src/schedule/schedule-log.js';
import { clockFile } from '../helpers/clock-file.js';
import { runCli, spawnCli, tempDataDir, watch, type WatchedProcess } from '../helpers/cli.js';
import { journalIds, listenEnv, receiverKillSwitch } from '../helpers/listen.js';
import { startWebhookReceiver } from '../helpers/receivers.js';
import { startTestSimulator } from '../helpers/simulator.js';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A report that reads no table: the job needs no warehouse, so it costs next to nothing. */
function reportDefinitions(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fanlake-reports-'));
  writeFileSync(join(dir, 'one.md'), '---\ntitle: One\npersonalData: false\n---\n\n```sql figures\nselect 42 as n\n```\n\n```figures\nquery: figures\nitems:\n  - { field: n, label: N, format: integer }\n```\n');
  return dir;
}

/** A loopback port held by the test, so the receiver cannot bind it until `release`. */
async function takenPort(): Promise<{ port: number; release(): Promise<void> }> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { port, release: () => new Promise((resolve) => server.close(() => resolve())) };
}


function logLines(dataDir: string): unknown[] {
  return readFileSync(join(dataDir, 'schedule', 'log.ndjson'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
}

describe('fanlake schedule with a listen secret', () => {
  it('receives deliveries; a receiver that cannot start or is killed raises one alert per outage and a notice when back, and the jobs go on', async () => {
    const sim = await startTestSimulator({ push: { retryMs: 20, maxAttempts: 3 } });
    cleanup.push(() => sim.close());
    const hook = await startWebhookReceiver();
    cleanup.push(hook.close);
    const taken = await takenPort();
    cleanup.push(() => taken.release().catch(() => undefined));

    const dataDir = tempDataDir();
    const cwd = mkdtempSync(join(tmpdir(), 'fanlake-schedule-'));
    // Hourly, under a clock of its own (test/helpers/season-clock.mjs): the test moves it an hour on for each job it wants.
    writeFileSync(join(cwd, 'fanlake.config.json'), JSON.stringify({ schedules: [{ name: 'often', cron: '0 * * * *', job: 'reports', reports: ['one'], deliver: { webhook: true } }] }));
    const clock = clockFile(Date.now());
    const nextJob = () => clock.set(clock.now() + 3_600_000);
    const killSwitch = receiverKillSwitch();
    const env = {
      ...listenEnv(sim, dataDir),
      ...killSwitch,
      FANLAKE_LISTEN_PORT: String(taken.port),
      FANLAKE_LISTEN_RESTART_SECONDS: '0.05',
      FANLAKE_WEBHOOK_URL: hook.url,
      FANLAKE_REPORT_DEFINITIONS: reportDefinitions(),
    };
    const proc: WatchedProcess = watch(spawnCli(['schedule'], { ...env, ...clock.env, NODE_OPTIONS: `${killSwitch.NODE_OPTIONS} ${clock.env.NODE_OPTIONS}` }, cwd));
    cleanup.push(async () => {
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
      await proc.done;
    });
    const alerts = () => hook.posts.filter((post) => /push receiver DOWN/.test(post.body.text));
    const recoveries = () => hook.posts.filter((post) => /push receiver is back/.test(post.body.text));
    const jobs = () => (proc.stdout.match(/ often slot .*: ok in/g) ?? []).length;

    // The port is taken: the receiver fails to start again and again, one alert for all of it.
    await proc.waitFor(/push receiver failed \(.*EADDRINUSE.*\); restart 3 in/, 'stderr');
    await proc.waitFor(/push receiver down: .*EADDRINUSE.*; webhook sent$/m);
    // The scheduler has read its start time once it says it started; a job while the receiver is down.
    await proc.waitFor(/scheduler started/, 'stderr');
    nextJob();
    await proc.waitFor(/ often slot .*: ok in/);
    const down = await runCli(['status'], env, { cwd });
    expect(down.code, down.stderr).toBe(0);
    expect(down.stdout).toMatch(/push receiver \(subscription none yet\): the receiver has been failing since \S+ \(.*EADDRINUSE.*\): the next run takes a full engagement snapshot/);
    expect(down.stdout).toMatch(/^ {2}failing since {6}\S+ \(.*EADDRINUSE/m);
    expect(down.stdout).toMatch(/^ {2}listening on {7}not listening$/m);

    await taken.release();
    await proc.waitFor(/push receiver listening on http:\/\/127\.0\.0\.1:\d+ \(subscription \d+ enabled and validated\)/, 'stderr');
    await proc.waitFor(/push receiver up \(down since \S+\); webhook sent$/m);
    expect(alerts()).toHaveLength(1);
    expect(alerts()[0]!.body.text).toContain('Scheduled jobs go on');
    expect(recoveries()).toHaveLength(1);

    const first = sim.changeCustomerProfiles({ count: 2 });
    await sim.push.idle();
    expect(journalIds(dataDir)).toEqual(first);

    // Killed while it runs: one more alert, a restart, a notice, and the jobs go on.
    const jobsBefore = jobs();
    proc.child.kill('SIGUSR2');
    await proc.waitFor(/push receiver down: the receiver was killed/m);
    await proc.waitFor(/push receiver up \(down since/m, 'stdout', 2);
    nextJob();
    await proc.waitFor(/ often slot .*: ok in/, 'stdout', jobsBefore + 1);
    expect(alerts()).toHaveLength(2);
    expect(recoveries()).toHaveLength(2);
    const second = sim.changeCustomerProfiles({ count: 1 });
    await sim.push.idle();
    expect(journalIds(dataDir)).toEqual([...first, ...second]);

    proc.child.kill('SIGTERM');
    expect((await proc.done).code, proc.stderr).toBe(0);
    expect(proc.stdout + proc.stderr).not.toContain('listen-test-secret');
    // Restarts and sleeps leave no listeners behind on the scheduler's signal.
    expect(proc.stderr).not.toContain('MaxListenersExceededWarning');

    const lines = logLines(dataDir);
    const receiverEntries = lines.flatMap((line) => {
      const parsed = receiverLogEntrySchema.safeParse(line);
      return parsed.success ? [parsed.data] : [];
    });
    expect(receiverEntries.map((e) => [e.receiver, e.deliveries])).toEqual([
      ['down', [{ channel: 'webhook', status: 'sent', attempts: 1 }]],
      ['up', [{ channel: 'webhook', status: 'sent', attempts: 1 }]],
      ['down', [{ channel: 'webhook', status: 'sent', attempts: 1 }]],
      ['up', [{ channel: 'webhook', status: 'sent', attempts: 1 }]],
    ]);
    expect(receiverEntries[2]!.error).toBe('the receiver was killed (SIGUSR2 in a test)');
    expect(lines.filter((line) => logEntrySchema.safeParse(line).success).length).toBeGreaterThanOrEqual(jobsBefore + 1);

    // status reads the receiver's state file alone: its subscription, last delivery, journal and next snapshot.
    const after = await runCli(['status'], env, { cwd });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toMatch(/push receiver \(subscription \d+\): the receiver stopped at/);
    expect(after.stdout).toMatch(/^ {2}last delivery {6}\d{4}-\d\d-\d\dT/m);
    expect(after.stdout).toMatch(/^ {2}journal {12}\d+\.\d KB in \d+ segments?; no unreadable lines$/m);
    expect(after.stdout).toMatch(/^ {2}next full snapshot {1}the next run \(none taken yet\)$/m);
    expect(after.stdout).toMatch(/^schedule log +\d+\.\d KB +rotated weekly, 90 days$/m);
    expect(after.stdout).toMatch(/^change journal +\d+\.\d KB /m);
  });

  it('exits 2 at once when the receiver is configured but the engagement API is not', async () => {
    const dataDir = tempDataDir();
    const cwd = mkdtempSync(join(tmpdir(), 'fanlake-schedule-'));
    writeFileSync(join(cwd, 'fanlake.config.json'), JSON.stringify({ schedules: [{ name: 'often', cron: '0 6 * * *', job: 'reports' }] }));
    const result = await runCli(['schedule'], { FANLAKE_DATA_DIR: dataDir, FANLAKE_LISTEN_SECRET: 'listen-test-secret-0123456789abcdefABCDEF' }, { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the push receiver receives the engagement API\'s pushes, but FANLAKE_ENGAGEMENT_URL is not set');
  });
});
