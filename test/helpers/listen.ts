import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Simulator } from '../../src/simulator/simulator.js';
import { REPO, spawnCli, watch, type WatchedProcess } from './cli.js';

/** The path token of test receivers: long enough for the setting. */
export const LISTEN_SECRET = 'listen-test-secret-0123456789abcdefABCDEF';

/** The environment of a receiver and the runs beside it, pointed at the simulator's engagement API. */
export function listenEnv(sim: Simulator, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    FANLAKE_ENGAGEMENT_URL: sim.url,
    FANLAKE_ENGAGEMENT_API_KEY: sim.options.engagementApiKey,
    FANLAKE_ENGAGEMENT_ORG_ID: sim.options.orgId,
    FANLAKE_DATA_DIR: dataDir,
    FANLAKE_LISTEN_SECRET: LISTEN_SECRET,
    // A run takes what was pushed before it at once; waiting for changes to settle is test/extract/refresh-plan.test.ts's.
    FANLAKE_LISTEN_SETTLE_SECONDS: '0',
    ...extra,
  };
}

/**
 * Starts `fanlake listen --port <port>`; resolves once it prints its address. `cleanup` gets
 * a step that kills it (SIGKILL) unless it has ended.
 */
export async function startListen(env: Record<string, string>, cleanup: (() => Promise<void>)[], port = '0'): Promise<{ url: string; proc: WatchedProcess }> {
  const proc = watch(spawnCli(['listen', '--port', port], env));
  cleanup.push(async () => {
    if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
    await proc.done;
  });
  const [, url] = (await proc.waitFor(/^listening on (http:\/\/\S+)$/m)) as RegExpMatchArray & [string, string];
  return { url, proc };
}

/**
 * The environment that lets a test kill the push receiver inside `fanlake schedule` with
 * SIGUSR2, leaving the process running (test/helpers/kill-receiver.mjs).
 */
export function receiverKillSwitch(): Record<string, string> {
  return { NODE_OPTIONS: `--import ${join(REPO, 'test', 'helpers', 'kill-receiver.mjs')}` };
}

/** Every profile id the journal of `dataDir` holds, in order. */
export function journalIds(dataDir: string): string[] {
  const dir = join(dataDir, 'listen', 'journal');
  return readdirSync(dir)
    .sort()
    .flatMap((file) => readFileSync(join(dir, file), 'utf8').split('\n').filter((line) => line.endsWith('}')))
    .flatMap((line) => (JSON.parse(line) as { ids?: string[] }).ids ?? []);
}
