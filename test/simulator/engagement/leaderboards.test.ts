import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mostCurrentSeason } from '../../../src/simulator/population/engagement/leaderboards.js';
import type { Simulator } from '../../../src/simulator/simulator.js';
import { startTestSimulator } from '../../helpers/simulator.js';
import { engagementGet, userapi, v2 } from './engagement-client.js';

const TOP = 'mypage/leaderboards/toppositions';

describe('most current season rule', () => {
  const season = (id: number, startMs: number, endMs: number) => ({ id, startMs, endMs });

  it('takes the active season, else the newest past one, else the one starting soonest', () => {
    const past = season(1, 0, 10);
    const newerPast = season(2, 20, 30);
    const active = season(3, 40, 50);
    const later = season(4, 70, 80);
    const soonest = season(5, 60, 65);
    expect(mostCurrentSeason([past, newerPast, active, later, soonest], 45)?.id).toBe(3);
    expect(mostCurrentSeason([past, newerPast, later, soonest], 45)?.id).toBe(2);
    expect(mostCurrentSeason([later, soonest], 45)?.id).toBe(5);
    expect(mostCurrentSeason([], 45)).toBeUndefined();
  });
});

describe('engagement leaderboards', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startTestSimulator();
  });
  afterAll(() => sim.close());

  const top = (query = '') => engagementGet(sim, v2(sim, `${TOP}${query}`));

  it('lists the seasons with their interval groupings', async () => {
    const { status, body } = await engagementGet(sim, v2(sim, 'mypage/leaderboards/leaderboardseasons'));
    expect(status).toBe(200);
    expect(body.map((s: any) => s.id)).toEqual([11, 12, 13, 14]);
    expect(body.filter((s: any) => s.demographicFieldId).map((s: any) => s.id)).toEqual([12]);
    const now = Date.parse('2026-06-01T00:00:00Z');
    expect(body.filter((s: any) => Date.parse(s.startDate) <= now && now <= Date.parse(s.endDate)).map((s: any) => s.id)).toEqual([13]);
    for (const grouping of body[2].intervalGroupings) {
      for (const interval of grouping.intervals) expect(interval).toMatchObject({ id: expect.any(Number), name: expect.any(String), startDate: expect.any(String) });
    }
  });

  it('serves the active season by default, 10 positions by default', async () => {
    const defaults = await top();
    expect(defaults.status).toBe(200);
    expect(defaults.text).toBe((await top('?leaderboardseasonid=13&positionCount=10')).text);
    expect(defaults.body.length).toBeGreaterThanOrEqual(10);
    expect(Object.keys(defaults.body[0])).toEqual(['participantName', 'customerProfileId', 'score', 'position', 'previousPosition']);
  });

  it('returns every position up to positionCount, so ties return more participants', async () => {
    let tied = 0;
    for (let positionCount = 1; positionCount <= 20; positionCount++) {
      const { body } = await top(`?positionCount=${positionCount}`);
      expect(body.length).toBeGreaterThanOrEqual(positionCount);
      for (const [k, entry] of body.entries()) {
        expect(entry.position).toBeLessThanOrEqual(positionCount);
        expect(entry.position).toBe(1 + body.filter((other: any) => other.score > entry.score).length);
        if (k > 0) expect(entry.score).toBeLessThanOrEqual(body[k - 1].score);
      }
      if (body.length > positionCount) tied++;
    }
    expect(tied).toBeGreaterThan(0);
  });

  it('answers the documented 400 and 404 messages', async () => {
    const cases = [
      ['?demographicValue=Oslo', 400, /^Season 13 has no DemographicField configured/],
      ['?leaderboardseasonid=12&demographicValue=Atlantis', 404, /^Could not find Leaderboard for given parameters: seasonId, intervalId, demographicValue/],
      ['?leaderboardseasonid=13&intervalId=1', 404, /^Could not find Leaderboard for given parameters/],
      ['?leaderboardseasonid=99', 404, /^Could not find Leaderboard for given parameters/],
      ['?positionCount=0', 400, /positionCount/],
      ['?positionCount=101', 400, /positionCount/],
    ] as const;
    for (const [query, status, message] of cases) {
      const answer = await top(query);
      expect(answer.status, query).toBe(status);
      expect(answer.body.message, query).toMatch(message);
    }
    expect((await top('?positionCount=100')).status).toBe(200);
  });

  it('serves demographic and interval boards of a season', async () => {
    const oslo = await top('?leaderboardseasonid=12&demographicValue=Oslo&positionCount=100');
    expect(oslo.status).toBe(200);
    expect(oslo.body.length).toBeGreaterThan(0);
    const osloPeople = new Set(oslo.body.map((e: any) => e.customerProfileId));
    for (const id of osloPeople) {
      const profile = sim.engagement.profiles.indexOfId(String(id));
      expect(sim.population.persons.get(sim.engagement.profiles.personOf(profile)).county).toBe('Oslo');
    }
    const may = await top('?leaderboardseasonid=13&intervalId=1303');
    expect(may.status).toBe(200);
    expect(may.text).not.toBe((await top('?leaderboardseasonid=13')).text);
    expect((await top('?leaderboardseasonid=14')).body).toEqual([]);
  });

  it("summarises the calling user's positions with a Bearer user token", async () => {
    const leader = (await top()).body[0];
    const token = (await engagementGet(sim, v2(sim, `customerinsights/cmtoken?provider=demo&token=demo-${leader.customerProfileId}`))).text;
    const summary = await engagementGet(sim, userapi(sim, 'mypage/leaderboards/leaderboardsummary'), `Bearer ${token}`);
    expect(summary.status).toBe(200);
    const general = summary.body.find((e: any) => e.leaderboardIntervalId === null && e.demographicValue === null);
    expect(general).toMatchObject({ name: 'Season 2026', score: leader.score, position: leader.position, previousPosition: leader.previousPosition });
    for (const entry of summary.body) expect(Object.keys(entry)).toEqual(['name', 'leaderboardIntervalId', 'demographicValue', 'score', 'position', 'previousPosition']);
    for (const auth of ['', `Basic ${sim.options.engagementApiKey}`, 'Bearer ut.1000000.00000000']) {
      expect((await engagementGet(sim, userapi(sim, 'mypage/leaderboards/leaderboardsummary'), auth)).status, auth).toBe(401);
    }
  });

  it('has no season when the leaderboards module is off', async () => {
    sim.setEngagementModule('leaderboards', false);
    try {
      const seasons = await engagementGet(sim, v2(sim, 'mypage/leaderboards/leaderboardseasons'));
      expect(seasons.status).toBe(404);
      expect(seasons.body.message).toMatch(/^LeaderboardSeason not found/);
      const positions = await top();
      expect(positions.status).toBe(404);
      expect(positions.body.message).toMatch(/^No suitable LeaderboardSeason could be found for tenant 4711/);
    } finally {
      sim.setEngagementModule('leaderboards', true);
    }
    expect((await top()).status).toBe(200);
  });
});
