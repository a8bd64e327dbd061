import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../src/simulator/simulator.js';
import { startTestSimulator } from '../../helpers/simulator.js';
import { adminRows, engagementGet, userapi, v2 } from './engagement-client.js';

const READS = [
  'customerinsights/customerprofiles?pageSize=5',
  'customerinsights/customerprofiles/1000004',
  'customerinsights/customerprofiles/5000004/consents',
  'customerinsights/cmtoken?provider=demo&token=demo-1000004',
  'campaign/campaignapps?pageSize=5',
  'campaign/campaignapps/30004',
  'campaign/participants?pageSize=5',
  'campaign/participants/9000004',
  'pushservice/subscriptions',
  'pushservice/subscriptions/61',
  'mypage/contexts/1001',
  'mypage/context?fieldType=section&fieldValue=home',
  'identities?externalId=1',
  'files/800004',
  'mypage/leaderboards/leaderboardseasons',
  'mypage/leaderboards/toppositions',
  'mypage/loyaltysummary?type=email&value=x',
];

describe('engagement access rules', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startTestSimulator();
  });
  afterAll(() => sim.close());

  it('answers 401 without the API key on every v2 endpoint', async () => {
    for (const path of READS) {
      for (const auth of ['', `Bearer ${sim.options.engagementApiKey}`, `Basic ${sim.options.engagementApiKey}x`, `Basic ${sim.options.ticketingToken}`]) {
        expect((await engagementGet(sim, v2(sim, path), auth)).status, `${path} with "${auth}"`).toBe(401);
      }
    }
  });

  it('answers 403 for another organization in the path', async () => {
    for (const path of ['customerinsights/customerprofiles', 'campaign/campaignapps', 'mypage/leaderboards/leaderboardseasons']) {
      const answer = await engagementGet(sim, `/v2/4712/${path}`);
      expect(answer.status, path).toBe(403);
      expect(answer.body.message).toMatch(/organization 4712/);
    }
    const token = sim.userToken('1000004');
    expect((await engagementGet(sim, '/userapi/v1/4712/mypage/activities', `Bearer ${token}`)).status).toBe(403);
  });

  it('answers 403 for the resources of a module switched off at run time, and serves them again when it is back on', async () => {
    const byModule = {
      interact: ['customerinsights/customerprofiles', 'customerinsights/customerprofiles/1000004', 'customerinsights/customerprofiles/5000004/consents', 'files/800004'],
      create: ['campaign/campaignapps', 'campaign/campaignapps/30004', 'campaign/participants', 'campaign/participants/9000004'],
      apiApp: ['identities?externalId=1'],
    } as const;
    for (const [module, paths] of Object.entries(byModule)) {
      const switched = await fetch(`${sim.url}/__admin/engagement/modules`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ [module]: false }) });
      expect(((await switched.json()) as Record<string, boolean>)[module]).toBe(false);
      for (const path of paths) {
        const answer = await engagementGet(sim, v2(sim, path));
        expect(answer.status, path).toBe(403);
        expect(answer.body.message).toBe(`Module ${module} is not enabled for organization 4711`);
      }
      expect((await engagementGet(sim, v2(sim, 'pushservice/subscriptions'))).status).toBe(200);
      sim.setEngagementModule(module as never, true);
      for (const path of paths) expect((await engagementGet(sim, v2(sim, path))).status, path).not.toBe(403);
    }
    expect(await (await fetch(`${sim.url}/__admin/engagement/modules`)).json()).toEqual({ apiApp: true, interact: true, create: true, loyalty: true, leaderboards: true });
  });

  it('fails one child request when the generic fault control forces it', async () => {
    const path = v2(sim, 'customerinsights/customerprofiles/5000004/consents');
    await fetch(`${sim.url}/__admin/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ force: { pattern: '/5000004/consents', fault: 'status-500', times: 1 } }),
    });
    expect((await engagementGet(sim, path)).status).toBe(500);
    expect((await engagementGet(sim, path)).status).toBe(200);
  });

  it('starts with the modules --disable-module names switched off', async () => {
    const other = await startTestSimulator({ disabledModules: ['create'] });
    try {
      expect((await engagementGet(other, v2(other, 'campaign/campaignapps'))).status).toBe(403);
      expect((await engagementGet(other, v2(other, 'customerinsights/customerprofiles'))).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('engagement determinism', () => {
  it('serves byte-identical responses for the same seed and time', async () => {
    const [a, b] = await Promise.all([startTestSimulator(), startTestSimulator()]);
    try {
      const paths = [...READS.map((p) => v2(a, p)), v2(a, 'customerinsights/customerprofiles?searchQuery=Any~hansen&pageSize=200'), v2(a, 'identities/5000004')];
      for (const path of paths) {
        const [left, right] = await Promise.all([engagementGet(a, path), engagementGet(b, path)]);
        expect(left.status, path).toBe(right.status);
        expect(left.text, path).toBe(right.text);
      }
      const token = (await engagementGet(a, v2(a, 'customerinsights/cmtoken?provider=demo&token=demo-1000004'))).text;
      for (const path of ['mypage/activities?limit=20', 'mypage/leaderboards/leaderboardsummary']) {
        const [left, right] = await Promise.all([engagementGet(a, userapi(a, path), `Bearer ${token}`), engagementGet(b, userapi(b, path), `Bearer ${token}`)]);
        expect(left.status, path).toBe(200);
        expect(left.text, path).toBe(right.text);
      }
      for (const resource of ['customer_profiles', 'people', 'consents', 'top_positions', 'context_nodes']) {
        expect(await adminRows(a, resource), resource).toEqual(await adminRows(b, resource));
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('engagement ground truth and admin', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startTestSimulator();
  });
  afterAll(() => sim.close());

  it('links every customer profile and person to its true person', async () => {
    const truth = [...sim.truth()];
    const profiles = await adminRows(sim, 'customer_profiles');
    const people = await adminRows(sim, 'people');
    const profileLinks = truth.filter((t) => t.system === 'engagement_customer_profile');
    const personLinks = truth.filter((t) => t.system === 'engagement_person');
    expect(profileLinks.map((t) => t.recordId)).toEqual(profiles.map((p) => p.id));
    expect(personLinks.map((t) => t.recordId)).toEqual(people.map((p) => p.id));
    const personOfProfile = new Map(profileLinks.map((t) => [t.recordId, t.personId]));
    for (const [k, person] of people.entries()) expect(personLinks[k]!.personId).toBe(personOfProfile.get(String(person.customerProfileId)));
    const served = (await fetch(`${sim.url}/__admin/truth`).then((r) => r.text())).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(served.filter((t) => t.system.startsWith('engagement_'))).toHaveLength(profileLinks.length + personLinks.length);
  });

  it('lists every engagement resource as NDJSON', async () => {
    const counts: Record<string, number> = {};
    for (const resource of ['customer_profiles', 'people', 'consents', 'consent_texts', 'consent_sources', 'campaign_apps', 'campaign_app_authentication_options', 'participants', 'subscriptions', 'leaderboard_seasons', 'top_positions', 'context_nodes']) {
      counts[resource] = (await adminRows(sim, resource)).length;
    }
    for (const [resource, count] of Object.entries(counts)) expect(count, resource).toBeGreaterThan(0);
    expect(counts.consent_texts).toBe(6);
    const top = await adminRows(sim, 'top_positions', '?positionCount=3');
    expect(top[0]).toMatchObject({ season_id: 11, interval_id: null, demographic_value: null, position: 1 });
    expect(top.every((row) => row.position <= 3)).toBe(true);
    expect((await fetch(`${sim.url}/__admin/engagement/nothing`)).status).toBe(404);
  });

  it('removes a customer profile and its people', async () => {
    const profile = (await adminRows(sim, 'customer_profiles'))[10];
    const response = await fetch(`${sim.url}/__admin/engagement/customer_profiles/remove`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ids: [profile.id, 'nope'] }),
    });
    expect(await response.json()).toEqual({ removed: [profile.id] });
    expect((await engagementGet(sim, v2(sim, `customerinsights/customerprofiles/${profile.id}`))).status).toBe(404);
    const page = (await engagementGet(sim, v2(sim, 'customerinsights/customerprofiles?pageSize=20'))).body.customerProfiles;
    expect(page.map((p: any) => p.id)).not.toContain(profile.id);
    expect(page).toHaveLength(20);
    const people = await adminRows(sim, 'people');
    for (const id of profile.links.people) {
      expect(people.find((p) => p.id === id)).toBeUndefined();
      expect((await engagementGet(sim, v2(sim, `customerinsights/customerprofiles/${id}/consents`))).status).toBe(404);
    }
    const truth = [...sim.truth()].filter((t) => t.recordId === profile.id || profile.links.people.includes(t.recordId));
    expect(truth.filter((t) => t.system.startsWith('engagement_'))).toEqual([]);
    const token = sim.userToken(profile.id);
    expect((await engagementGet(sim, userapi(sim, 'mypage/activities'), `Bearer ${token}`)).status).toBe(401);
  });
});
