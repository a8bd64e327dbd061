import { unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../config/load-config.js';
import { registerSecret } from '../core/secrets.js';
import { errorMessage, FanlakeError, UsageError } from '../core/errors.js';
import { backoffDelay, sleep } from '../core/backoff.js';
import { SerialQueue } from '../core/serial-queue.js';
import type { SourceConnection } from '../sources/connection.js';
import { engagementConnection } from '../sources/engagement/index.js';
import { isHttpsOrLoopback } from '../config/settings.js';
import { journalDir } from './journal.js';
import { JournalWriter } from './journal-writer.js';
import { HEARTBEAT_MS, readReceiverState, type ReceiverState, coverageGap, writeReceiverState } from './receiver-state.js';
import { PUSH_PATH, type ReceiverEvent, ReceiverServer } from './receiver-server.js';
import { registerSubscription } from './register-subscription.js';
import { type PushSubscription, SubscriptionApi } from './subscription-api.js';

export interface ReceiverRun {
  readonly config: Config;
  /** Overrides `listen.port` (`listen --port N`). */
  readonly port?: number;
  /** Aborted on SIGTERM or SIGINT: the receiver stops cleanly. */
  readonly stop: AbortSignal;
  /** Once listening with the subscription enabled and validated: the address it listens on. */
  readonly onReady: (listeningOn: string, subscriptionId: string) => void;
  readonly onEvent?: (event: ReceiverEvent) => void;
  /**
   * Standalone `listen`: when the subscription calls at start-up give up on transient
   * failures (a 429 storm, the API down), wait (the last Retry-After, else backoff up to
   * five minutes) and start them again until stopped, telling `onStartupWait` each time.
   * Without it they end the receiver, which `schedule`'s supervisor restarts and alerts on.
   */
  readonly retryStartup?: boolean;
  readonly onStartupWait?: (message: string) => void;
}

/** Backoff of a standalone receiver's start-up between rounds of subscription calls. */
const STARTUP_BACKOFF = { baseDelayMs: 2_000, maxDelayMs: 300_000 };

/**
 * What the receiver needs from the configuration, checked before anything starts: a
 * UsageError (exit 2) names what is missing. Registers the secrets for masking.
 */
export function receiverSettings(config: Config): { connection: SourceConnection; secret: string } {
  const outcome = engagementConnection(config);
  if ('skipped' in outcome) throw new UsageError(`the push receiver receives the engagement API's pushes, but ${outcome.skipped}`);
  const secret = config['listen.secret'];
  if (!secret) throw new UsageError('FANLAKE_LISTEN_SECRET is not set: set an unguessable path token of at least 32 characters in the environment or .env (e.g. openssl rand -hex 32)');
  registerSecret(secret);
  registerSecret(outcome.connection.authorization.replace(/^Basic /, ''));
  const host = config['listen.host'];
  // Without a public URL the platform calls the receiver's own address, which carries the secret.
  if (config['listen.publicUrl'] === undefined && !isHttpsOrLoopback(`http://${hostInUrl(host)}`)) {
    throw new UsageError(`listen.publicUrl is not set, and the receiver would be called over plain http on ${host}, which sends the secret in clear text: set FANLAKE_LISTEN_PUBLIC_URL to the https URL of its TLS reverse proxy`, { key: 'listen.publicUrl' });
  }
  const segmentBytes = config['listen.journalSegmentBytes'];
  const maxBytes = config['listen.journalMaxBytes'];
  if (maxBytes < 2 * segmentBytes) {
    throw new UsageError(`listen.journalMaxBytes (${maxBytes}) must be at least twice listen.journalSegmentBytes (${segmentBytes}): the bound keeps the live segment and one before it`, { key: 'listen.journalMaxBytes' });
  }
  return { connection: outcome.connection, secret };
}

/**
 * `fanlake listen`: binds the receiver, points the organization's subscription at it
 * (registering, re-pointing or validating it as needed), then records deliveries until
 * stopped. Its state file tells extraction since when every change is in the journal.
 */
export async function runReceiver(run: ReceiverRun): Promise<void> {
  const { config } = run;
  const { connection, secret } = receiverSettings(config);
  const { dataDir } = config;
  const previous = await readReceiverState(dataDir);
  if (previous && previous.host === hostname() && previous.pid !== process.pid && coverageGap(previous, new Date(0)) === undefined) {
    throw new UsageError(`another receiver (fanlake listen or schedule, pid ${previous.pid}) receives for ${dataDir}; stop it first`);
  }

  let lastDeliveryAt = previous?.lastDeliveryAt;
  const withLastDelivery = (next: ReceiverState): ReceiverState => (lastDeliveryAt ? { ...next, lastDeliveryAt } : next);
  const journal = await JournalWriter.open(dataDir, { segmentBytes: config['listen.journalSegmentBytes'], maxBytes: config['listen.journalMaxBytes'] });
  const server = new ReceiverServer({
    journal,
    secret,
    maxBodyBytes: config['listen.maxBodyBytes'],
    maxRequestsPerSecond: config['listen.maxRequestsPerSecond'],
    maxUnauthenticatedPerSecond: config['listen.maxUnauthenticatedPerSecond'],
    profileIdPaths: config['listen.profileIdPaths'],
    onEvent: (event) => {
      // Kept in memory and written with the next heartbeat: a delivery costs no extra write.
      if (event.type === 'changes' || event.type === 'unreadable') lastDeliveryAt = new Date().toISOString();
      run.onEvent?.(event);
    },
  });
  let heartbeat: NodeJS.Timeout | undefined;
  let state: ReceiverState | undefined;
  // One write at a time, in order: a heartbeat must not land after the final state.
  const writes = new SerialQueue();
  const save = (next: ReceiverState) => writes.run(() => writeReceiverState(dataDir, next)).catch(() => undefined);
  try {
    const host = config['listen.host'];
    const bound = await server.listen(host, run.port ?? config['listen.port']);
    const listeningOn = `http://${hostInUrl(host)}:${bound.port}`;
    const publicUrl = (config['listen.publicUrl'] ?? listeningOn).replace(/\/+$/, '');
    state = withLastDelivery({ version: 1, pid: process.pid, host: hostname(), segment: journal.segment, listeningOn, publicUrl, heartbeatAt: new Date().toISOString() });
    await writeReceiverState(dataDir, state);
    heartbeat = setInterval(() => {
      // The segment moves when the journal rotates: load keeps the one named here.
      state = withLastDelivery({ ...state!, segment: journal.segment, heartbeatAt: new Date().toISOString() });
      void save(state);
    }, HEARTBEAT_MS);
    heartbeat.unref();

    const api = new SubscriptionApi({ connection, timeoutMs: config['http.timeoutMs'], maxAttempts: config['http.maxAttempts'] });
    const register = () => registerSubscription({ api, server, callbackUrl: `${publicUrl}${PUSH_PATH}${secret}`, previousId: previous?.subscriptionId, publicUrl });
    const subscription = await registerUntilStopped(run, register);
    if (subscription === undefined) return;
    const now = new Date().toISOString();
    state = withLastDelivery({ ...state, subscriptionId: subscription.id, coveredSince: now, heartbeatAt: now });
    await save(state);
    run.onReady(listeningOn, subscription.id);
    if (!run.stop.aborted) await Promise.race([new Promise((resolve) => run.stop.addEventListener('abort', resolve, { once: true })), server.failed]);
  } finally {
    clearInterval(heartbeat);
    await server.close();
    await journal.close();
    // A receiver that never bound (restarted again and again under fanlake schedule) leaves no empty segment behind.
    if (!state) await unlink(join(journalDir(dataDir), `${journal.segment}.ndjson`)).catch(() => undefined);
    if (state) await save(withLastDelivery({ ...state, heartbeatAt: new Date().toISOString(), stoppedAt: new Date().toISOString() }));
  }
}

/**
 * Registers the subscription; with `retryStartup`, a round that gave up on transient failures
 * is waited out and tried again until `stop`. Undefined when stopped while waiting.
 */
async function registerUntilStopped(run: ReceiverRun, register: () => Promise<PushSubscription>): Promise<PushSubscription | undefined> {
  for (let round = 1; ; round++) {
    try {
      return await register();
    } catch (error) {
      // Stopped while a round was in flight: its failure no longer matters.
      if (run.stop.aborted) return undefined;
      if (!run.retryStartup || !(error instanceof FanlakeError) || error.context.transient !== true) throw error;
      const after = error.context.retryAfterMs;
      const waitMs = typeof after === 'number' ? after : backoffDelay(round, STARTUP_BACKOFF);
      run.onStartupWait?.(`${errorMessage(error)}; trying again in ${(waitMs / 1000).toFixed(1)} s${typeof after === 'number' ? ' (Retry-After)' : ''}, until stopped`);
      const stopped = await sleep(waitMs, run.stop).then(() => false, () => true);
      if (stopped) return undefined;
    }
  }
}

/** A host as it stands in a URL: an IPv6 address in brackets. */
function hostInUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
