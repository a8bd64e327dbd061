import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Cron } from 'croner';
import { describe, expect, it } from 'vitest';
import { clockFile } from '../helpers/clock-file.js';
import { runCli, tempDataDir } from '../helpers/cli.js';

describe('fanlake status', () => {
  it('shows the receiver from its state file alone (no API is configured): where it listens, its coverage, last delivery, journal, and the next full snapshot', async () => {
    const dataDir = tempDataDir();
    const now = Date.now();
    const iso = (msAgo: number) => new Date(now - msAgo).toISOString();
    mkdirSync(join(dataDir, 'listen', 'journal'), { recursive: true });
    writeFileSync(join(dataDir, 'listen', 'journal', '20260601T000000000Z.ndjson'), `${JSON.stringify({ at: iso(60_000), ids: ['1000001'] })}\n`);
    // This test's own process stands in for the receiver: alive, on this host, its heartbeat fresh.
    writeFileSync(join(dataDir, 'listen', 'receiver.json'), JSON.stringify({
      version: 1, pid: process.pid, host: hostname(), segment: '20260601T000000000Z', listeningOn: 'http://127.0.0.1:8788', publicUrl: 'https://hooks.club.example',
      subscriptionId: '64', coveredSince: iso(7_200_000), heartbeatAt: iso(0), lastDeliveryAt: iso(60_000),
    }));
    mkdirSync(join(dataDir, 'state'), { recursive: true });
    const lastFull = new Date(now - 3_600_000);
    writeFileSync(join(dataDir, 'state', 'engagement-snapshots.json'), JSON.stringify({ version: 1, endpoints: { customer_profiles: { startedAt: lastFull.toISOString(), runId: '20260601T000000Z-abcdef' } } }));
    const cron = '0 0 1 1 *';

    // status judges the heartbeat's age by its clock: frozen at the test's time, however slowly it starts.
    const result = await runCli(['status'], { FANLAKE_DATA_DIR: dataDir, FANLAKE_ENGAGEMENT_SNAPSHOT_CRON: cron, ...clockFile(now, { frozen: true }).env });
    expect(result.code, result.stderr).toBe(0);
    const next = new Cron(cron, { timezone: 'UTC', paused: true }).nextRun(lastFull)!.toISOString();
    expect(result.stdout).toContain([
      `push receiver (subscription 64): up, every change recorded since ${iso(7_200_000)}`,
      `  1 changed customer profiles recorded and not loaded yet; last full snapshot ${lastFull.toISOString()}`,
      '  listening on       http://127.0.0.1:8788 (public https://hooks.club.example)',
      `  covered since      ${iso(7_200_000)}`,
      `  last delivery      ${iso(60_000)}`,
      `  heartbeat          ${iso(0)}`,
    ].join('\n'));
    expect(result.stdout).toMatch(/^ {2}journal {12}0\.\d KB in 1 segment; no unreadable lines$/m);
    expect(result.stdout).toContain(`  next full snapshot ${next} (FANLAKE_ENGAGEMENT_SNAPSHOT_CRON ${cron}, UTC)`);
    expect(result.stdout).not.toContain('failing since');
    expect(result.stdout).toMatch(/^change journal +0\.\d KB +segments go once their changes are loaded$/m);
  });
});
