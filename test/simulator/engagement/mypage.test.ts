import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rfc3966 } from '../../../src/simulator/population/persons.js';
import type { Simulator } from '../../../src/simulator/simulator.js';
import { startTestSimulator } from '../../helpers/simulator.js';
import { adminRows, engagementGet, userapi, v2 } from './engagement-client.js';

/** Every node of a rendered tree, depth first. */
function flatten(node: any): any[] {
  return [node, ...node.children.flatMap(flatten)];
}

function chain(node: any): any[] {
  return node.parent ? [...chain(node.parent), node.parent] : [];
}

describe('engagement contexts', () => {
  let sim: Simulator;
  let nodes: any[];
  beforeAll(async () => {
    sim = await startTestSimulator();
    nodes = await adminRows(sim, 'context_nodes');
  });
  afterAll(() => sim.close());

  const get = (path: string) => engagementGet(sim, v2(sim, path));

  it('serves a node with the whole tree below it when depth is absent', async () => {
    const roots = nodes.filter((n) => n.type === 'mypage');
    expect(roots.length).toBeGreaterThanOrEqual(2);
    let seen = 0;
    for (const root of roots) {
      const { status, body } = await get(`mypage/contexts/${root.id}`);
      expect(status).toBe(200);
      expect(body).toMatchObject({ id: root.id, isRoot: true, parent: null, path: root.id });
      const tree = flatten(body);
      seen += tree.length;
      for (const node of tree.slice(1)) {
        expect(node.isRoot).toBe(false);
        expect(node.path.startsWith(`${root.id}.`)).toBe(true);
        expect(node.path.endsWith(`.${node.id}`)).toBe(true);
      }
      expect(new Set(tree.map((n: any) => n.type))).toEqual(new Set(['mypage', 'tab', 'carousel', 'carouselItem', 'campaign']));
    }
    expect(seen).toBe(nodes.length);
    expect((await get('mypage/contexts/nope')).status).toBe(404);
  });

  it('cuts children at depth', async () => {
    const root = nodes.find((n) => n.type === 'mypage');
    expect((await get(`mypage/contexts/${root.id}?depth=0`)).body.children).toEqual([]);
    const one = (await get(`mypage/contexts/${root.id}?depth=1`)).body;
    expect(one.children.length).toBeGreaterThan(0);
    for (const child of one.children) expect(child).toMatchObject({ type: 'tab', children: [] });
    const two = (await get(`mypage/contexts/${root.id}?depth=2`)).body;
    expect(two.children.some((c: any) => c.children.length > 0)).toBe(true);
    expect((await get(`mypage/contexts/${root.id}?depth=-1`)).status).toBe(400);
  });

  it('finds nodes by a customData field, each with its ancestor chain in parent', async () => {
    const { status, body } = await get('mypage/context?fieldType=section&fieldValue=home&depth=1');
    expect(status).toBe(200);
    expect(body.length).toBeGreaterThan(1);
    for (const node of body) {
      expect(JSON.parse(node.customData).section).toBe('home');
      expect(node.isRoot).toBe(true);
      const ancestors = chain(node);
      expect([...ancestors.map((a) => a.id), node.id].join('.')).toBe(node.path);
      expect(ancestors[0].type).toBe('mypage');
      for (const ancestor of ancestors) expect(ancestor).toMatchObject({ isRoot: false, children: [] });
      for (const child of node.children) expect(child.children).toEqual([]);
    }
    const alias = await get('mypage/context?fieldName=section&fieldValue=home&depth=1');
    expect(alias.text).toBe(JSON.stringify(body));

    const campaign = nodes.find((n) => n.type === 'campaign');
    const appId = JSON.parse(campaign.customData).campaignAppId;
    const byApp = (await get(`mypage/context?fieldType=campaignAppId&fieldValue=${appId}`)).body;
    expect(byApp.map((n: any) => n.id)).toContain(campaign.id);

    const roots = (await get('mypage/context?fieldType=level&fieldValue=root')).body;
    expect(roots.flatMap(flatten)).toHaveLength(nodes.length);
    expect((await get('mypage/context?fieldType=section&fieldValue=nowhere')).body).toEqual([]);
    expect((await get('mypage/context?fieldValue=home')).status).toBe(400);
  });
});

describe('engagement loyalty, activities, files and subscriptions', () => {
  let sim: Simulator;
  let profiles: any[];
  beforeAll(async () => {
    sim = await startTestSimulator();
    profiles = await adminRows(sim, 'customer_profiles');
  });
  afterAll(() => sim.close());

  const get = (path: string) => engagementGet(sim, v2(sim, path));

  it('finds a loyalty summary by e-mail and by RFC 3966 phone', async () => {
    const withEmail = profiles.find((p) => p.email && p.email !== p.email.trim().toLowerCase());
    const byEmail = await get(`mypage/loyaltysummary?type=email&value=${encodeURIComponent(withEmail.email)}`);
    expect(byEmail.status).toBe(200);
    expect(Object.keys(byEmail.body)).toEqual(['balance', 'rank', 'ranks', 'distinctions']);
    expect(byEmail.body.ranks).toHaveLength(4);
    expect(byEmail.body.ranks.map((r: any) => r.id)).toContain(byEmail.body.rank.id);
    for (const distinction of byEmail.body.distinctions) expect(typeof distinction.isEarned).toBe('boolean');
    const normalised = await get(`mypage/loyaltysummary?type=email&value=${encodeURIComponent(withEmail.email.trim().toLowerCase())}`);
    expect(normalised.text).toBe(byEmail.text);

    const withPhone = profiles.find((p) => p.phoneNumber);
    const person = sim.population.persons.get(sim.engagement.profiles.personOf(sim.engagement.profiles.indexOfId(withPhone.id)));
    const tel = rfc3966(person.phone);
    const byPhone = await get(`mypage/loyaltysummary?type=phone&value=${encodeURIComponent(tel)}`);
    expect(byPhone.status).toBe(200);
    const compact = await get(`mypage/loyaltysummary?type=phone&value=${encodeURIComponent(tel.replace('-', ''))}`);
    expect(compact.text).toBe(byPhone.text);
    expect((await get(`mypage/loyaltysummary?type=phone&value=${encodeURIComponent(tel.slice(4))}`)).status).toBe(400);

    expect((await get('mypage/loyaltysummary?type=email&value=nobody%40example.org')).status).toBe(404);
    expect((await get('mypage/loyaltysummary?type=fax&value=1')).status).toBe(400);
    expect((await get('mypage/loyaltysummary?type=email')).status).toBe(400);
  });

  it("lists the calling user's activities, most recent first, with limit and offset", async () => {
    const id = profiles.find((p) => sim.engagement.activities.list(sim.engagement.profiles.indexOfId(p.id), 0, 30, true).length >= 12).id;
    const auth = `Bearer ${sim.userToken(id)}`;
    const first = await engagementGet(sim, userapi(sim, 'mypage/activities'), auth);
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(10);
    const times = first.body.map((a: any) => Date.parse(a.createdDateTime));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(first.body[0]).toMatchObject({ id: expect.any(String), type: expect.any(String), subtype: expect.any(String), originalAmount: expect.any(Number) });
    const window = await engagementGet(sim, userapi(sim, 'mypage/activities?limit=3&offset=4'), auth);
    expect(window.body).toEqual(first.body.slice(4, 7));
    expect((await engagementGet(sim, userapi(sim, 'mypage/activities'), '')).status).toBe(401);

    sim.setEngagementModule('loyalty', false);
    try {
      const withoutLoyalty = (await engagementGet(sim, userapi(sim, 'mypage/activities'), auth)).body;
      for (const activity of withoutLoyalty) expect(activity).toMatchObject({ originalAmount: null, multiplier: null, totalAmount: null });
      expect((await get('mypage/loyaltysummary?type=email&value=x')).status).toBe(403);
    } finally {
      sim.setEngagementModule('loyalty', true);
    }
  });

  it('serves files as images', async () => {
    const response = await fetch(`${sim.url}${v2(sim, 'files/800001')}`, { headers: { authorization: `Basic ${sim.options.engagementApiKey}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect((await get('files/1')).status).toBe(404);
  });

  it('lists push subscriptions in the short form, filtered by eventname, and reads one in full', async () => {
    const { status, body } = await get('pushservice/subscriptions');
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['subscriptions']);
    expect(body.subscriptions.length).toBeGreaterThan(0);
    for (const subscription of body.subscriptions) {
      expect(Object.keys(subscription)).toEqual(['id', 'href', 'type', 'url', 'isEnabled', 'isValidated', 'event']);
    }
    expect((await get('pushservice/subscriptions?eventname=CustomerProfile')).body).toEqual(body);
    expect((await get('pushservice/subscriptions?eventname=Ticket')).body).toEqual({ subscriptions: [] });
    const one = (await get(`pushservice/subscriptions/${body.subscriptions[1].id}`)).body.subscriptions;
    expect(one).toMatchObject({ ...body.subscriptions[1], format: expect.any(String), createdDateTime: expect.any(String) });
    expect(one).toHaveProperty('failingSince');
    expect((await get('pushservice/subscriptions/1')).status).toBe(404);
  });
});
