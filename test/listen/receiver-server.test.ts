import { Agent, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { readChangesSince } from '../../src/listen/journal.js';
import { JournalWriter } from '../../src/listen/journal-writer.js';
import { DEFAULT_PROFILE_ID_PATHS } from '../../src/listen/push-payload.js';
import { type ReceiverServerOptions, ReceiverServer } from '../../src/listen/receiver-server.js';
import { tempDataDir } from '../helpers/cli.js';
import { LISTEN_SECRET } from '../helpers/listen.js';

const RECEIVED_AT = new Date('2026-03-01T12:00:00.000Z');

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A receiver on loopback whose rate limits run on a clock the test moves (it stands still otherwise). */
async function receiver(options: Partial<ReceiverServerOptions> = {}) {
  const dataDir = tempDataDir();
  const journal = await JournalWriter.open(dataDir);
  const clock = { ms: 0 };
  const server = new ReceiverServer({
    journal,
    secret: LISTEN_SECRET,
    maxBodyBytes: 2_000,
    maxRequestsPerSecond: 20,
    maxUnauthenticatedPerSecond: 10,
    profileIdPaths: DEFAULT_PROFILE_ID_PATHS,
    clock: () => clock.ms,
    now: () => RECEIVED_AT,
    ...options,
  });
  const { port } = await server.listen('127.0.0.1', 0);
  cleanup.push(async () => {
    await server.close();
    await journal.close();
  });
  return { dataDir, server, port, clock };
}

type Answer = number | 'closed';

/** One request over loopback: its status, or `closed` when the connection closed without an answer. */
function send(port: number, path: string, options: { method?: string; body?: string; agent?: Agent } = {}): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'POST', agent: options.agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
      res.on('error', () => resolve(res.statusCode!));
    });
    req.on('error', () => resolve('closed'));
    req.end(options.body ?? '{}');
  });
}

const delivery = (id: string) => JSON.stringify({ event: 'CustomerProfile', customerProfiles: [{ id }] });
const count = (answers: Answer[], answer: Answer) => answers.filter((a) => a === answer).length;

describe('ReceiverServer', () => {
  it('journals and answers 200 every delivery during a flood of wrong-path requests, which get 404 within their own bound and a closed connection beyond it', async () => {
    const { dataDir, port } = await receiver();
    // The flood comes through many connections of its own; the platform through its own.
    const flood = new Agent({ keepAlive: true, maxSockets: 64 });
    const platform = new Agent({ keepAlive: true, maxSockets: 4 });
    cleanup.push(async () => (flood.destroy(), platform.destroy()));
    const paths = ['/', '/push/', '/push/not-the-secret-0123456789abcdefABCDEF', `/push/${LISTEN_SECRET.slice(0, -1)}`, `/x/push/${LISTEN_SECRET}x`];
    const strangers = Array.from({ length: 2_000 }, (_, k) => send(port, paths[k % paths.length]!, { agent: flood, method: k % 7 === 0 ? 'GET' : 'POST' }));
    const ids = Array.from({ length: 20 }, (_, k) => String(1_000_000 + k));
    const deliveries = ids.map((id) => send(port, `/push/${LISTEN_SECRET}`, { agent: platform, body: delivery(id) }));

    expect(await Promise.all(deliveries)).toEqual(ids.map(() => 200));
    const turnedAway = await Promise.all(strangers);
    // The clock stands still: the strangers' burst of 10 is all they get, and none of the platform's.
    expect(count(turnedAway, 404)).toBe(10);
    expect(count(turnedAway, 'closed')).toBe(2_000 - 10);
    expect((await readChangesSince(dataDir, undefined)).ids.sort()).toEqual(ids);
  });

  it('takes deliveries within their rate: a burst of as many as a second allows, then 429 until the clock moves', async () => {
    const { dataDir, port, clock } = await receiver({ maxRequestsPerSecond: 5 });
    const post = (k: number) => send(port, `/push/${LISTEN_SECRET}`, { body: delivery(String(1_000_000 + k)) });
    const burst = await Promise.all(Array.from({ length: 20 }, (_, k) => post(k)));
    expect(count(burst, 200)).toBe(5);
    expect(count(burst, 429)).toBe(15);
    // Strangers have an allowance of their own, left whole by the deliveries.
    expect(await send(port, '/elsewhere')).toBe(404);
    clock.ms += 400;
    expect(count(await Promise.all([20, 21, 22].map(post)), 200)).toBe(2);
    clock.ms += 1_000;
    expect(count(await Promise.all([30, 31, 32, 33, 34, 35].map(post)), 200)).toBe(5);
    expect((await readChangesSince(dataDir, undefined)).entries).toBe(12);
  });

  it('refuses another method and a body over the limit, and records the time a delivery arrived', async () => {
    const { dataDir, port } = await receiver();
    expect(await send(port, `/push/${LISTEN_SECRET}`, { method: 'GET' })).toBe(405);
    expect(await send(port, `/push/${LISTEN_SECRET}`, { body: JSON.stringify({ customerProfileIds: Array.from({ length: 400 }, (_, k) => String(k)) }) })).toBe(413);
    expect(await send(port, `/push/${LISTEN_SECRET}?source=platform`, { body: delivery('7') })).toBe(200);
    expect(await send(port, `/push/${LISTEN_SECRET}`, { body: 'not json' })).toBe(200);
    const read = await readChangesSince(dataDir, undefined, { settledBefore: RECEIVED_AT });
    expect(read).toMatchObject({ ids: ['7'], unparsed: 1, entries: 2 });
  });

  it('hands a validation token to whoever waits for it, also one that arrived first', async () => {
    const { server, port } = await receiver();
    const waiting = server.validationToken('64', 60_000);
    expect(await send(port, `/push/${LISTEN_SECRET}`, { body: JSON.stringify({ subscriptions: { id: '64', validationToken: 'tok-1' } }) })).toBe(200);
    expect(await waiting).toBe('tok-1');
    expect(await send(port, `/push/${LISTEN_SECRET}?validationToken=tok-2`, { body: '' })).toBe(200);
    expect(await server.validationToken(undefined, 60_000)).toBe('tok-2');
  });

  it('ends as failed, without an unhandled error, when the listening server fails', async () => {
    const { server } = await receiver();
    // The http.Server inside: an accept failure (EMFILE) reaches it as an 'error' event.
    (server as unknown as { server: import('node:http').Server }).server.emit('error', Object.assign(new Error('accept EMFILE'), { code: 'EMFILE' }));
    await expect(server.failed).rejects.toThrow('accept EMFILE');
  });
});
