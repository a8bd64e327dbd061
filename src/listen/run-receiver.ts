import { hostname } from 'node:os';
import type { Config } from '../config/load-config.js';
import { registerSecret } from '../core/secrets.js';
import { UsageError } from '../core/errors.js';
import { SerialQueue } from '../core/serial-queue.js';
import { engagementConnection } from '../sources/engagement/index.js';
import { isHttpsOrLoopback } from '../config/settings.js';
import { JournalWriter } from './journal-writer.js';
import { HEARTBEAT_MS, readReceiverState, type ReceiverState, coverageGap, writeReceiverState } from './receiver-state.js';
import { PUSH_PATH, type ReceiverEvent, ReceiverServer } from './receiver-server.js';
import { registerSubscription } from './register-subscription.js';
import { SubscriptionApi } from './subscription-api.js';

export interface ReceiverRun {
  readonly config: Config;
  /** Overrides `listen.port` (`listen --port N`). */
  readonly port?: number;
  /** Aborted on SIGTERM or SIGINT: the receiver stops cleanly. */
  readonly stop: AbortSignal;
  /** Once listening with the subscription enabled and validated: the address it listens on. */
  readonly onReady: (listeningOn: string, subscriptionId: string) => void;
  readonly onEvent?: (event: ReceiverEvent) => void;
}

/**
 * `fanlake listen`: binds the receiver, points the organization's subscription at it
 * (registering, re-pointing or validating it as needed), then records deliveries until
 * stopped. Its state file tells extraction since when every change is in the journal.
 */
export async function runReceiver(run: ReceiverRun): Promise<void> {
  const { config } = run;
  const outcome = engagementConnection(config);
  if ('skipped' in outcome) throw new UsageError(`fanlake listen receives the engagement API's pushes, but ${outcome.skipped}`);
  const secret = config['listen.secret'];
  if (!secret) throw new UsageError('FANLAKE_LISTEN_SECRET is not set: set an unguessable path token of at least 32 characters in the environment or .env (e.g. openssl rand -hex 32)');
  registerSecret(secret);
  registerSecret(outcome.connection.authorization.replace(/^Basic /, ''));
  const { dataDir } = config;
  const previous = await readReceiverState(dataDir);
  if (previous && previous.host === hostname() && previous.pid !== process.pid && coverageGap(previous, new Date(0)) === undefined) {
    throw new UsageError(`another fanlake listen (pid ${previous.pid}) receives for ${dataDir}; stop it first`);
  }

  const host = config['listen.host'];
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  // Without a public URL the platform calls the receiver's own address, which carries the secret.
  if (config['listen.publicUrl'] === undefined && !isHttpsOrLoopback(`http://${hostInUrl}`)) {
    throw new UsageError(`listen.publicUrl is not set, and the receiver would be called over plain http on ${host}, which sends the secret in clear text: set FANLAKE_LISTEN_PUBLIC_URL to the https URL of its TLS reverse proxy`, { key: 'listen.publicUrl' });
  }
  const segmentBytes = config['listen.journalSegmentBytes'];
  const maxBytes = config['listen.journalMaxBytes'];
  if (maxBytes < 2 * segmentBytes) {
    throw new UsageError(`listen.journalMaxBytes (${maxBytes}) must be at least twice listen.journalSegmentBytes (${segmentBytes}): the bound keeps the live segment and one before it`, { key: 'listen.journalMaxBytes' });
  }

  const journal = await JournalWriter.open(dataDir, { segmentBytes, maxBytes });
  const server = new ReceiverServer({
    journal,
    secret,
    maxBodyBytes: config['listen.maxBodyBytes'],
    maxRequestsPerSecond: config['listen.maxRequestsPerSecond'],
    maxUnauthenticatedPerSecond: config['listen.maxUnauthenticatedPerSecond'],
    profileIdPaths: config['listen.profileIdPaths'],
    onEvent: run.onEvent,
  });
  let heartbeat: NodeJS.Timeout | undefined;
  let state: ReceiverState | undefined;
  // One write at a time, in order: a heartbeat must not land after the final state.
  const writes = new SerialQueue();
  const save = (next: ReceiverState) => writes.run(() => writeReceiverState(dataDir, next)).catch(() => undefined);
  try {
    const bound = await server.listen(host, run.port ?? config['listen.port']);
    const listeningOn = `http://${hostInUrl}:${bound.port}`;
    const publicUrl = (config['listen.publicUrl'] ?? listeningOn).replace(/\/+$/, '');
    state = { version: 1, pid: process.pid, host: hostname(), segment: journal.segment, listeningOn, publicUrl, heartbeatAt: new Date().toISOString() };
    await writeReceiverState(dataDir, state);
    heartbeat = setInterval(() => {
      // The segment moves when the journal rotates: load keeps the one named here.
      state = { ...state!, segment: journal.segment, heartbeatAt: new Date().toISOString() };
      void save(state);
    }, HEARTBEAT_MS);
    heartbeat.unref();

    const api = new SubscriptionApi({ connection: outcome.connection, timeoutMs: config['http.timeoutMs'], maxAttempts: config['http.maxAttempts'] });
    const subscription = await registerSubscription({ api, server, callbackUrl: `${publicUrl}${PUSH_PATH}${secret}`, previousId: previous?.subscriptionId, publicUrl });
    const now = new Date().toISOString();
    state = { ...state, subscriptionId: subscription.id, coveredSince: now, heartbeatAt: now };
    await save(state);
    run.onReady(listeningOn, subscription.id);
    if (!run.stop.aborted) await new Promise((resolve) => run.stop.addEventListener('abort', resolve, { once: true }));
  } finally {
    clearInterval(heartbeat);
    await server.close();
    await journal.close();
    if (state) await save({ ...state, heartbeatAt: new Date().toISOString(), stoppedAt: new Date().toISOString() });
  }
}
