import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHENTICATION_TYPES, CAMPAIGN_APP_STATUSES } from '../../../src/simulator/population/engagement/campaign-apps.js';
import type { Simulator } from '../../../src/simulator/simulator.js';
import { startTestSimulator } from '../../helpers/simulator.js';
import { adminRows, engagementGet, v2 } from './engagement-client.js';

describe('engagement campaign apps and participants', () => {
  let sim: Simulator;
  let apps: any[];
  let participants: any[];
  beforeAll(async () => {
    sim = await startTestSimulator();
    apps = await adminRows(sim, 'campaign_apps');
    participants = await adminRows(sim, 'participants');
  });
  afterAll(() => sim.close());

  const get = async (path: string) => {
    const answer = await engagementGet(sim, v2(sim, path));
    expect(answer.status, path).toBe(200);
    return answer.body;
  };

  it('wraps apps in {campaignApps, links, linked: {campaignAppAuthenticationOptions}}', async () => {
    const body = await get('campaign/campaignapps');
    expect(Object.keys(body).sort()).toEqual(['campaignApps', 'linked', 'links']);
    expect(body.campaignApps).toEqual(apps.slice(0, 50));
    const optionIds = body.campaignApps.flatMap((a: any) => a.links.campaignAppAuthenticationOptions);
    expect(body.linked.campaignAppAuthenticationOptions.map((o: any) => o.id)).toEqual(optionIds);
    for (const option of body.linked.campaignAppAuthenticationOptions) {
      expect(option.type).toBe('campaignAppAuthenticationOptions');
      expect(AUTHENTICATION_TYPES).toContain(option._type);
    }
    for (const app of body.campaignApps) {
      expect(app).toMatchObject({ type: 'campaignApps', tenantId: 4711, isRemoved: app.status === 'archived' });
      expect(app.shareLinkUrl).toBeUndefined();
      expect(CAMPAIGN_APP_STATUSES).toContain(app.status);
    }
    expect(new Set(apps.map((a) => a.status))).toEqual(new Set(CAMPAIGN_APP_STATUSES));
  });

  it('pages apps from zero', async () => {
    const first = (await get('campaign/campaignapps?pageSize=7')).campaignApps;
    const second = (await get('campaign/campaignapps?pageSize=7&pageIndex=1')).campaignApps;
    expect([...first, ...second]).toEqual(apps.slice(0, 14));
  });

  it('filters by statuses, repeated or comma-separated, and refuses unknown ones', async () => {
    const running = (await get('campaign/campaignapps?statuses=running&pageSize=1000')).campaignApps;
    expect(running.map((a: any) => a.id)).toEqual(apps.filter((a) => a.status === 'running').map((a) => a.id));
    const expected = apps.filter((a) => a.status === 'running' || a.status === 'ended').map((a) => a.id);
    expect((await get('campaign/campaignapps?statuses=running,ended&pageSize=1000')).campaignApps.map((a: any) => a.id)).toEqual(expected);
    expect((await get('campaign/campaignapps?statuses=running&statuses=ended&pageSize=1000')).campaignApps.map((a: any) => a.id)).toEqual(expected);
    const bad = await engagementGet(sim, v2(sim, 'campaign/campaignapps?statuses=paused'));
    expect(bad.status).toBe(400);
  });

  it('reads one app with its shareLinkUrl, and 404 for an unknown one', async () => {
    const body = await get(`campaign/campaignapps/${apps[3].id}`);
    expect(body.campaignApps).toEqual({ ...apps[3], shareLinkUrl: expect.stringMatching(/^https:\/\//) });
    expect(body.linked.campaignAppAuthenticationOptions.map((o: any) => o.id)).toEqual(apps[3].links.campaignAppAuthenticationOptions);
    expect((await engagementGet(sim, v2(sim, 'campaign/campaignapps/1'))).status).toBe(404);
  });

  it('pages participants from zero, 50 by default, ordered by app', async () => {
    const body = await get('campaign/participants');
    expect(Object.keys(body)).toEqual(['campaignAppParticipants']);
    expect(body.campaignAppParticipants).toEqual(participants.slice(0, 50));
    expect((await get('campaign/participants?pageIndex=1&pageSize=50')).campaignAppParticipants).toEqual(participants.slice(50, 100));
    const appIds = participants.map((p) => p.campaignAppId);
    expect(appIds).toEqual([...appIds].sort((a, b) => a - b));
    expect(participants[0]).toMatchObject({ type: 'campaignAppParticipants', id: expect.any(String) });
  });

  it('filters participants by campaignAppId', async () => {
    const appId = participants[participants.length >> 1].campaignAppId;
    const expected = participants.filter((p) => p.campaignAppId === appId);
    const shown = (await get(`campaign/participants?campaignAppId=${appId}&pageSize=1000`)).campaignAppParticipants;
    expect(shown).toEqual(expected);
    const paged = (await get(`campaign/participants?campaignAppId=${appId}&pageSize=2&pageIndex=1`)).campaignAppParticipants;
    expect(paged).toEqual(expected.slice(2, 4));
    expect((await get('campaign/participants?campaignAppId=1')).campaignAppParticipants).toEqual([]);
    expect((await engagementGet(sim, v2(sim, 'campaign/participants?campaignAppId=abc'))).status).toBe(400);
  });

  it('reads one participant as {campaignAppParticipants: participant}', async () => {
    const body = await get(`campaign/participants/${participants[5].id}`);
    expect(body).toEqual({ campaignAppParticipants: participants[5] });
    expect((await engagementGet(sim, v2(sim, 'campaign/participants/12'))).status).toBe(404);
  });
});
