import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireWriterLock, LOCK_FILE } from '../../src/core/writer-lock.js';
import type { Simulator } from '../../src/simulator/simulator.js';
import { REPO, runCli, spawnCli, tempDataDir, watch, type WatchedProcess } from '../helpers/cli.js';
import { startTestSimulator } from '../helpers/simulator.js';

const holders: WatchedProcess[] = [];
let sim: Simulator | undefined;
afterEach(async () => {
  for (const holder of holders.splice(0)) holder.child.kill('SIGKILL');
  await sim?.close();
  sim = undefined;
});

/** Another process holding the lock until its stdin closes. */
async function holdLock(dataDir: string, command = 'test-holder'): Promise<WatchedProcess> {
  const child = spawn(process.execPath, [join(REPO, 'test/helpers/hold-writer-lock.mjs'), dataDir, command], { stdio: ['pipe', 'pipe', 'pipe'] });
  const holder = watch(child);
  holders.push(holder);
  await holder.waitFor(/held by pid/);
  return holder;
}

describe('one writer per data directory', () => {
  it('a second writer exits 1 at once naming the holder: command, pid, host, since', async () => {
    const dataDir = tempDataDir();
    const holder = await holdLock(dataDir, 'extract');
    const second = await runCli(['build'], { FANLAKE_DATA_DIR: dataDir });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`is being written by extract \\(pid ${holder.child.pid} on \\S+, since \\d{4}-\\d\\d-\\d\\dT`));
    expect(second.stderr).toContain('--wait');
  });

  it('--wait SECONDS waits for the holder, says so once, then runs', async () => {
    const dataDir = tempDataDir();
    const holder = await holdLock(dataDir);
    const waiting = watch(spawnCli(['check', '--wait', '60'], { FANLAKE_DATA_DIR: dataDir }));
    await waiting.waitFor(/waiting for test-holder/, 'stderr');
    holder.child.stdin!.end();
    const result = await waiting.done;
    // It got the lock; check then fails for want of a warehouse, which is its own, later error.
    expect(result.stderr).not.toMatch(/being written by/);
    expect(result.stderr).toMatch(/no warehouse/);
    expect(result.stderr.match(/waiting for/g)).toHaveLength(1);
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it('a writer killed with -9 leaves its lock; the next writer takes it over with a warning', async () => {
    const dataDir = tempDataDir();
    const holder = await holdLock(dataDir, 'load');
    holder.child.kill('SIGKILL');
    await holder.done;
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(true);
    const next = await runCli(['load'], { FANLAKE_DATA_DIR: dataDir });
    expect(next.stderr).toMatch(new RegExp(`warning: taking over the lock of load \\(pid ${holder.child.pid} .*process ${holder.child.pid} is gone`));
    expect(next.code).toBe(0);
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it('two real extractions at once: the second is refused while the first pages; after kill -9 of the first, a third takes over and completes', async () => {
    // The first extraction pages an API that holds its answers, so it is surely still running.
    const api = await holdingServer();
    sim = await startTestSimulator();
    const dataDir = tempDataDir();
    const env = (url: string) => ({ FANLAKE_TICKETING_URL: url, FANLAKE_TICKETING_TOKEN: sim!.options.ticketingToken, FANLAKE_DATA_DIR: dataDir });
    const first = watch(spawnCli(['extract', '--source', 'ticketing'], env(api.url)));
    holders.push(first);
    await api.requested;

    const second = await runCli(['extract', '--source', 'ticketing'], env(sim.url));
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`being written by extract (pid ${first.child.pid}`);

    first.child.kill('SIGKILL');
    await first.done;
    await api.close();
    const third = await runCli(['extract', '--source', 'ticketing'], env(sim.url));
    expect(third.stderr).toContain(`taking over the lock of extract (pid ${first.child.pid}`);
    expect(third.code).toBe(0);
  });

  it('SIGTERM stops a writer and releases its lock', async () => {
    const api = await holdingServer();
    const dataDir = tempDataDir();
    const writer = watch(spawnCli(['extract', '--source', 'ticketing'], { FANLAKE_TICKETING_URL: api.url, FANLAKE_TICKETING_TOKEN: 'token-for-test', FANLAKE_DATA_DIR: dataDir }));
    holders.push(writer);
    await api.requested;
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(true);
    writer.child.kill('SIGTERM');
    const result = await writer.done;
    await api.close();
    expect(result.code).toBe(143);
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it('a lock from another host is kept until it has gone without a heartbeat for the stale age', async () => {
    const dataDir = tempDataDir();
    const path = join(dataDir, LOCK_FILE);
    writeFileSync(path, JSON.stringify({ command: 'build', pid: 1, host: 'another-host', since: '2026-01-01T00:00:00Z' }));
    const kept = await runCli(['load'], { FANLAKE_DATA_DIR: dataDir, FANLAKE_LOCK_STALE_SECONDS: '600' });
    expect(kept.code).toBe(1);
    expect(kept.stderr).toMatch(/build \(pid 1 on another-host.*taken over only after 600 s without a heartbeat/);

    const old = new Date(Date.now() - 700_000);
    utimesSync(path, old, old);
    const taken = await runCli(['load'], { FANLAKE_DATA_DIR: dataDir, FANLAKE_LOCK_STALE_SECONDS: '600' });
    expect(taken.stderr).toMatch(/taking over the lock of build \(pid 1 on another-host.*no heartbeat for \d+ s \(limit 600 s/);
    expect(taken.code).toBe(0);
  });

  it('of many takers of a stale lock at once, exactly one wins', async () => {
    const dataDir = tempDataDir();
    writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify({ command: 'old', pid: 1, host: 'gone-host', since: '2026-01-01T00:00:00Z' }));
    const old = new Date(Date.now() - 10_000_000);
    utimesSync(join(dataDir, LOCK_FILE), old, old);
    const attempts = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => acquireWriterLock(dataDir, { command: `taker-${i}` })));
    const won = attempts.filter((attempt) => attempt.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const holder = JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8'));
    expect(holder.command).toBe((won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof acquireWriterLock>>>).value.holder.command);
    for (const attempt of attempts) if (attempt.status === 'rejected') expect(attempt.reason).toMatchObject({ code: 'E_LOCK_HELD' });
  });
});

/** An API on loopback that takes requests and answers none until closed: a writer that is surely busy. */
async function holdingServer(): Promise<{ url: string; requested: Promise<void>; close(): Promise<void> }> {
  let onRequest!: () => void;
  const requested = new Promise<void>((resolve) => (onRequest = resolve));
  const server = createServer(() => onRequest());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requested,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
