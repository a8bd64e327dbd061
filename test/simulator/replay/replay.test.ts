import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLAY_STATS_PATH } from '../../../src/simulator/replay/replay-router.js';
import type { Simulator } from '../../../src/simulator/simulator.js';
import { TEST_NOW, startTestSimulator } from '../../helpers/simulator.js';

const NOW_S = Date.parse(TEST_NOW) / 1000;
const YEAR_S = 365 * 86_400;
const CREDENTIALS = { ticketingToken: 'replay-token', engagementApiKey: 'replay-key', orgId: '4711' };

async function get(sim: Simulator, pathAndQuery: string, authorization: string) {
  const response = await fetch(`${sim.url}${pathAndQuery}`, { headers: { authorization } });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

describe('simulator in replay mode', () => {
  let live: Simulator;
  let replay: Simulator;
  beforeAll(async () => {
    live = await startTestSimulator({ admin: false, ...CREDENTIALS });
    replay = await startTestSimulator({ admin: false, replay: true, ...CREDENTIALS });
  });
  afterAll(async () => {
    await live?.close();
    await replay?.close();
  });

  it('serves ticketing pages byte for byte as the simulator does: string counts, page bases, windows, the 3-year cap', async () => {
    const auth = `Basic ${CREDENTIALS.ticketingToken}`;
    const window = `date_init=${NOW_S - 2 * YEAR_S}&date_end=${NOW_S}`;
    const asked = [
      `/api/users?${window}&count_elements=7&page=0&order=ASC`,
      `/api/users?${window}&count_elements=7&page=3&order=DESC`,
      `/api/tickets?${window}&count_elements=200&page=1&order=ASC`,
      `/api/tickets?${window}&count_elements=200&page=0&order=ASC`,
      `/api/members?count_elements=5`,
      `/api/merchandise?date_init=${NOW_S - 30 * 86_400}&date_end=${NOW_S}&count_elements=50&page=2&order=ASC`,
      `/api/user_permission?${window}&count_elements=200&page=9999`,
      `/api/tickets?date_init=${NOW_S - 4 * YEAR_S}&date_end=${NOW_S}`,
      `/api/users?date_init=${NOW_S}`,
    ];
    for (const path of asked) {
      const expected = await get(live, path, auth);
      const got = await get(replay, path, auth);
      expect(got, path).toEqual(expected);
    }
    const first = JSON.parse((await get(replay, asked[2]!, auth)).text);
    expect(typeof first.count).toBe('string');
    expect(first.items.length).toBe(Math.min(200, Number(first.count)));
    expect((await get(replay, asked[0]!, 'Basic wrong')).status).toBe(401);
  });

  it('answers engagement requests with the bytes of their first answer, query in any order', async () => {
    const auth = `Basic ${CREDENTIALS.engagementApiKey}`;
    const profiles = '/v2/4711/customerinsights/customerprofiles?pageIndex=1&pageSize=5';
    const expected = await get(live, profiles, auth);
    expect(expected.status).toBe(200);
    expect(await get(replay, profiles, auth)).toEqual(expected);
    expect(await get(replay, '/v2/4711/customerinsights/customerprofiles?pageSize=5&pageIndex=1', auth)).toEqual(expected);
    expect((await get(replay, profiles, 'Basic wrong')).status).toBe(401);
    const stats = JSON.parse((await get(replay, REPLAY_STATS_PATH, '')).text);
    expect(stats).toEqual({ hits: 1, misses: 2 });
  });

  it('serves the same bytes beyond its memory budget, rendering what it cannot keep per request', async () => {
    const spent = await startTestSimulator({ admin: false, replay: true, replayMemoryMb: 0, ...CREDENTIALS });
    try {
      const ticketing = `Basic ${CREDENTIALS.ticketingToken}`;
      const window = `date_init=${NOW_S - 2 * YEAR_S}&date_end=${NOW_S}`;
      for (const path of [`/api/tickets?${window}&count_elements=200&page=1&order=ASC`, `/api/users?${window}&count_elements=7&page=3&order=DESC`]) {
        expect(await get(spent, path, ticketing), path).toEqual(await get(live, path, ticketing));
      }
      const engagement = `Basic ${CREDENTIALS.engagementApiKey}`;
      const profiles = '/v2/4711/customerinsights/customerprofiles?pageIndex=0&pageSize=5';
      const expected = await get(live, profiles, engagement);
      expect(await get(spent, profiles, engagement)).toEqual(expected);
      expect(await get(spent, profiles, engagement)).toEqual(expected);
      // nothing was kept, so the second answer was rendered again
      expect(JSON.parse((await get(spent, REPLAY_STATS_PATH, '')).text)).toEqual({ hits: 0, misses: 2 });
    } finally {
      await spent.close();
    }
  });

  it('refuses faults, mutations and the admin surface, which would change the bytes', async () => {
    await expect(startTestSimulator({ replay: true, faults: 0.1 })).rejects.toThrow(/replay/);
    await expect(startTestSimulator({ replay: true, admin: true })).rejects.toThrow(/replay/);
  });
});
