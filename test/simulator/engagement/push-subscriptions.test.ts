import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../src/simulator/simulator.js';
import { startTestSimulator } from '../../helpers/simulator.js';
import { adminRows, engagementGet, v2 } from './engagement-client.js';

interface Received {
  path: string;
  contentType: string;
  body: any;
}

interface Hook {
  url: string;
  received: Received[];
  /** Resolves with what `probe` finds among the requests received, now or once a request brings it. */
  until<T>(probe: () => T | undefined): Promise<T>;
  close(): Promise<void>;
}

/** A loopback callback that records what it is sent and answers with `status()`. */
async function callback(status: () => number = () => 200): Promise<Hook> {
  const received: Received[] = [];
  // Each waiter looks again on every request: no polling, no deadline but the test's own.
  const waiters = new Set<() => void>();
  const server: Server = createServer((request: IncomingMessage, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', contentType: String(request.headers['content-type']), body: JSON.parse(text) });
      response.writeHead(status()).end();
      for (const look of [...waiters]) look();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const until = <T>(probe: () => T | undefined) =>
    new Promise<T>((resolve) => {
      const look = () => {
        const value = probe();
        if (value === undefined) return;
        waiters.delete(look);
        resolve(value);
      };
      waiters.add(look);
      look();
    });
  return { url: `http://127.0.0.1:${port}`, received, until, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function simulator(push: { retryMs?: number; maxAttempts?: number; disableAfterMs?: number } = {}): Promise<Simulator> {
  const sim = await startTestSimulator({ push: { retryMs: 20, maxAttempts: 3, ...push } });
  cleanup.push(() => sim.close());
  return sim;
}

async function send(sim: Simulator, method: 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) {
  const response = await fetch(`${sim.url}${v2(sim, path)}`, {
    method,
    headers: { authorization: `Basic ${sim.options.engagementApiKey}`, 'content-type': 'application/vnd.api+json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** Creates a subscription to `url` and completes its handshake; returns its id. */
async function subscribe(sim: Simulator, hook: Hook, path = '/hooks/{org}/profiles'): Promise<string> {
  const created = await send(sim, 'POST', 'pushservice/subscriptions', { subscriptions: { event: 'CustomerProfile', url: `${hook.url}${path}` } });
  expect(created.status).toBe(201);
  const { id } = created.body.subscriptions;
  const token = await hook.until(() => hook.received.find((r) => r.body.subscriptions?.id === id)?.body.subscriptions.validationToken as string | undefined);
  expect((await send(sim, 'PUT', `pushservice/subscriptions/${id}`, { subscriptions: { validationToken: token, isEnabled: true } })).status).toBe(200);
  return id;
}

describe('engagement push subscriptions', () => {
  it('creates a subscription, sends its validation token to the url, and validates it with the token sent back', async () => {
    const sim = await simulator();
    const hook = await callback();
    cleanup.push(() => hook.close());
    const created = await send(sim, 'POST', 'pushservice/subscriptions', { subscriptions: { event: 'CustomerProfile', url: `${hook.url}/hooks/{org}/profiles` } });
    expect(created.status).toBe(201);
    const subscription = created.body.subscriptions;
    expect(subscription).toMatchObject({ type: 'subscriptions', event: 'CustomerProfile', isEnabled: false, isValidated: false, failingSince: null });
    expect(subscription).not.toHaveProperty('validationToken');

    const validation = await hook.until(() => hook.received[0]);
    expect(validation.path).toBe(`/hooks/${sim.options.orgId}/profiles`);
    expect(validation.contentType).toBe('application/vnd.api+json; charset=utf-8');
    expect(validation.body).toEqual({ subscriptions: { id: subscription.id, event: 'CustomerProfile', validationToken: expect.stringMatching(/^[\w-]{32}$/) } });

    const wrong = await send(sim, 'PUT', `pushservice/subscriptions/${subscription.id}`, { subscriptions: { validationToken: 'guessed' } });
    expect(wrong.status).toBe(400);
    const put = await send(sim, 'PUT', `pushservice/subscriptions/${subscription.id}`, { subscriptions: { validationToken: validation.body.subscriptions.validationToken, isEnabled: true } });
    expect(put.status).toBe(200);
    expect(put.body.subscriptions).toMatchObject({ id: subscription.id, isEnabled: true, isValidated: true });
    const listed = (await engagementGet(sim, v2(sim, 'pushservice/subscriptions'))).body.subscriptions;
    expect(listed.find((s: any) => s.id === subscription.id)).toMatchObject({ isEnabled: true, isValidated: true });
    // A token is good once.
    expect((await send(sim, 'PUT', `pushservice/subscriptions/${subscription.id}`, { subscriptions: { validationToken: validation.body.subscriptions.validationToken } })).status).toBe(400);
  });

  it('refuses a create without event or with a url that is not http(s)', async () => {
    const sim = await simulator();
    expect((await send(sim, 'POST', 'pushservice/subscriptions', { subscriptions: { url: 'https://x.example/' } })).status).toBe(400);
    expect((await send(sim, 'POST', 'pushservice/subscriptions', { subscriptions: { event: 'Ticket', url: 'https://x.example/' } })).status).toBe(400);
    expect((await send(sim, 'POST', 'pushservice/subscriptions', { subscriptions: { event: 'CustomerProfile', url: 'ftp://x.example/' } })).status).toBe(400);
    expect((await send(sim, 'POST', 'pushservice/subscriptions', { event: 'CustomerProfile', url: 'https://x.example/' })).status).toBe(400);
  });

  it('delivers profile changes only to enabled and validated subscriptions, and the change is in the API', async () => {
    const sim = await simulator();
    const hook = await callback();
    cleanup.push(() => hook.close());
    const pending = await callback();
    cleanup.push(() => pending.close());
    const id = await subscribe(sim, hook);
    // Created but never validated: no deliveries.
    expect((await send(sim, 'POST', 'pushservice/subscriptions', { subscriptions: { event: 'CustomerProfile', url: `${pending.url}/p` } })).status).toBe(201);
    await pending.until(() => pending.received[0]);

    // A profile with a consent not revoked yet, so the change revokes it.
    const consentsNow = await adminRows(sim, 'consents');
    const profile = (await adminRows(sim, 'customer_profiles')).find((p) => consentsNow.some((c) => c.customerProfileId === Number(p.id) && !c.isRevoked))!;
    const consentsOf = async () => (await engagementGet(sim, v2(sim, `customerinsights/customerprofiles/${profile.links.people[0]}/consents`))).body.consents as any[];
    const revoked = (consents: any[]) => consents.filter((c) => c.isRevoked).length;
    const consentsBefore = await consentsOf();
    const before = (await engagementGet(sim, v2(sim, `customerinsights/customerprofiles/${profile.id}`))).body;
    const changed = await (await fetch(`${sim.url}/__admin/engagement/customer_profiles/change`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ids: [profile.id] }) })).json();
    expect(changed).toEqual({ ids: [profile.id] });
    const stats = await (await fetch(`${sim.url}/__admin/push?idle=true`)).json();
    expect(stats).toMatchObject({ delivered: 1, deliveredChanges: 1, failedAttempts: 0, dropped: 0, pending: 0 });

    const delivery = hook.received.at(-1)!;
    expect(delivery.path).toBe(`/hooks/${sim.options.orgId}/profiles`);
    expect(delivery.body).toEqual({
      event: 'CustomerProfile',
      subscriptionId: id,
      organizationId: Number(sim.options.orgId),
      customerProfiles: [{ id: profile.id, type: 'customerProfiles', href: `/v2/${sim.options.orgId}/customerinsights/customerprofiles/${profile.id}`, changeType: 'updated', changedDateTime: expect.any(String) }],
    });
    expect(pending.received).toHaveLength(1);

    const after = (await engagementGet(sim, v2(sim, `customerinsights/customerprofiles/${profile.id}`))).body;
    expect(after.customerProfiles.street).not.toBe(before.customerProfiles.street);
    expect(after.linked.people[0].profileImageUrl).not.toBe(before.linked.people[0].profileImageUrl);
    const consentsAfter = await consentsOf();
    expect(revoked(consentsAfter)).toBe(revoked(consentsBefore) + 1);
    expect(consentsAfter.find((c) => c.isRevoked && !consentsBefore.find((b) => b.id === c.id).isRevoked).revokedDateTime).toBe(delivery.body.customerProfiles[0].changedDateTime);

    sim.removeCustomerProfiles([profile.id]);
    await sim.push.idle();
    expect(hook.received.at(-1)!.body.customerProfiles).toEqual([expect.objectContaining({ id: profile.id, changeType: 'deleted' })]);
  });

  it('retries a failing delivery, sets failingSince while it fails and clears it on the next success', async () => {
    const sim = await simulator({ retryMs: 20, maxAttempts: 3 });
    let answer = 200;
    const hook = await callback(() => answer);
    cleanup.push(() => hook.close());
    const id = await subscribe(sim, hook);
    answer = 503;
    const before = hook.received.length;
    sim.changeCustomerProfiles({ count: 2 });
    await sim.push.idle();
    expect(hook.received.length - before).toBe(3);
    expect(sim.push.stats()).toMatchObject({ delivered: 0, failedAttempts: 3, dropped: 1 });
    const failing = (await engagementGet(sim, v2(sim, `pushservice/subscriptions/${id}`))).body.subscriptions;
    expect(failing.failingSince).toEqual(expect.any(String));
    expect(failing.isEnabled).toBe(true);

    answer = 200;
    sim.changeCustomerProfiles({ count: 1 });
    await sim.push.idle();
    expect(sim.push.stats()).toMatchObject({ delivered: 1, dropped: 1 });
    expect((await engagementGet(sim, v2(sim, `pushservice/subscriptions/${id}`))).body.subscriptions.failingSince).toBeNull();
  });

  it('disables a subscription whose deliveries fail for longer than the platform allows', async () => {
    const sim = await simulator({ retryMs: 30, maxAttempts: 5, disableAfterMs: 50 });
    let answer = 200;
    const hook = await callback(() => answer);
    cleanup.push(() => hook.close());
    const id = await subscribe(sim, hook);
    answer = 500;
    sim.changeCustomerProfiles({ count: 1 });
    sim.changeCustomerProfiles({ count: 1 });
    await sim.push.idle();
    const subscription = (await engagementGet(sim, v2(sim, `pushservice/subscriptions/${id}`))).body.subscriptions;
    expect(subscription).toMatchObject({ isEnabled: false, failingSince: expect.any(String) });
    expect(sim.push.stats()).toMatchObject({ delivered: 0, dropped: 2 });
  });

  it('applies a changed url only when it answers the validation call with 200, then requires the new token', async () => {
    const sim = await simulator();
    const hook = await callback();
    cleanup.push(() => hook.close());
    const refusing = await callback(() => 404);
    cleanup.push(() => refusing.close());
    const moved = await callback();
    cleanup.push(() => moved.close());
    const id = await subscribe(sim, hook);

    const refused = await send(sim, 'PUT', `pushservice/subscriptions/${id}`, { subscriptions: { url: `${refusing.url}/x` } });
    expect(refused.status).toBe(409);
    expect((await engagementGet(sim, v2(sim, `pushservice/subscriptions/${id}`))).body.subscriptions).toMatchObject({ url: `${hook.url}/hooks/{org}/profiles`, isValidated: true });

    const changed = await send(sim, 'PUT', `pushservice/subscriptions/${id}`, { subscriptions: { url: `${moved.url}/new` } });
    expect(changed.status).toBe(200);
    expect(changed.body.subscriptions).toMatchObject({ url: `${moved.url}/new`, isValidated: false });
    const token = moved.received[0]!.body.subscriptions.validationToken;
    // Not validated: no deliveries until the token comes back.
    sim.changeCustomerProfiles({ count: 1 });
    await sim.push.idle();
    expect(moved.received).toHaveLength(1);
    expect((await send(sim, 'PUT', `pushservice/subscriptions/${id}`, { subscriptions: { validationToken: token } })).body.subscriptions.isValidated).toBe(true);
    sim.changeCustomerProfiles({ count: 1 });
    await sim.push.idle();
    expect(moved.received).toHaveLength(2);
  });

  it('deletes a subscription', async () => {
    const sim = await simulator();
    const hook = await callback();
    cleanup.push(() => hook.close());
    const id = await subscribe(sim, hook);
    expect((await send(sim, 'DELETE', `pushservice/subscriptions/${id}`)).status).toBe(204);
    expect((await engagementGet(sim, v2(sim, `pushservice/subscriptions/${id}`))).status).toBe(404);
    expect((await send(sim, 'DELETE', `pushservice/subscriptions/${id}`)).status).toBe(404);
  });
});
