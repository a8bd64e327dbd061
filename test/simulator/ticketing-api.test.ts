import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/simulator.js';
import { TEST_NOW, startTestSimulator, ticketingGet } from '../helpers/simulator.js';

const NOW_S = Date.parse(TEST_NOW) / 1000;
const YEAR_S = 365 * 86_400;
const RECENT = `date_init=${NOW_S - 2 * YEAR_S}&date_end=${NOW_S}`;

describe('ticketing API simulation', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startTestSimulator();
  });
  afterAll(() => sim.close());

  it('answers 401 when Authorization is missing, malformed or wrong', async () => {
    for (const auth of ['', 'Bearer x', `Basic ${sim.options.ticketingToken}x`]) {
      const { status } = await ticketingGet(sim, `/api/users?${RECENT}`, auth);
      expect(status).toBe(401);
    }
  });

  it('serializes count and page as strings, page empty when not asked', async () => {
    const first = await ticketingGet(sim, `/api/users?${RECENT}&count_elements=5`);
    expect(first.status).toBe(200);
    expect(typeof first.body.count).toBe('string');
    expect(Number(first.body.count)).toBeGreaterThan(5);
    expect(first.body.page).toBe('');
    const second = await ticketingGet(sim, `/api/users?${RECENT}&count_elements=5&page=2`);
    expect(second.body.page).toBe('2');
  });

  it('pages users and user_permission from zero, tickets and merchandise from one', async () => {
    for (const [path, base] of [['/api/users', 0], ['/api/user_permission', 0], ['/api/tickets', 1], ['/api/merchandise', 1]] as const) {
      const ids = async (page: number) => (await ticketingGet(sim, `${path}?${RECENT}&count_elements=3&page=${page}&order=ASC`)).body.items.map((i: any) => JSON.stringify(i));
      const firstPage = await ids(base);
      const defaultPage = (await ticketingGet(sim, `${path}?${RECENT}&count_elements=3&order=ASC`)).body.items.map((i: any) => JSON.stringify(i));
      expect(defaultPage, path).toEqual(firstPage);
      expect(await ids(base + 1), path).not.toEqual(firstPage);
      if (base === 1) expect(await ids(0), `${path} serves page 0 as page 1`).toEqual(firstPage);
    }
  });

  it('requires dates where documented and caps the range at 3 years', async () => {
    for (const path of ['/api/users', '/api/user_permission', '/api/tickets']) {
      expect((await ticketingGet(sim, `${path}?date_init=${NOW_S - 10}`)).status, path).toBe(400);
      expect((await ticketingGet(sim, `${path}`)).status, path).toBe(400);
    }
    const merchandise = await ticketingGet(sim, '/api/merchandise?count_elements=1');
    expect(merchandise.status).toBe(200);
    const all = Number(merchandise.body.count);
    expect(all).toBe(sim.ticketing.merchandise.timeline.count);

    const cap = 1095 * 86_400;
    expect((await ticketingGet(sim, `/api/tickets?date_init=${NOW_S - cap}&date_end=${NOW_S}`)).status).toBe(200);
    const over = await ticketingGet(sim, `/api/tickets?date_init=${NOW_S - cap - 1}&date_end=${NOW_S}`);
    expect(over.status).toBe(400);
    expect(over.body.message).toMatch(/3 years/);
    expect((await ticketingGet(sim, `/api/merchandise?date_init=${NOW_S - cap - 1}&date_end=${NOW_S}`)).status).toBe(400);
  });

  it('limits count_elements to 200 and rejects malformed parameters', async () => {
    expect((await ticketingGet(sim, `/api/tickets?${RECENT}&count_elements=200`)).body.items).toHaveLength(200);
    for (const query of ['count_elements=201', 'count_elements=0', 'page=-1', 'order=UP']) {
      expect((await ticketingGet(sim, `/api/tickets?${RECENT}&${query}`)).status, query).toBe(400);
    }
    for (const query of [`date_init=abc&date_end=${NOW_S}`, `date_init=${NOW_S}&date_end=${NOW_S - 1}`, `date_init=${NOW_S}.5&date_end=${NOW_S}`]) {
      expect((await ticketingGet(sim, `/api/tickets?${query}`)).status, query).toBe(400);
    }
    const defaults = await ticketingGet(sim, `/api/tickets?${RECENT}`);
    expect(defaults.body.items).toHaveLength(10);
  });

  it('filters on last_update with millisecond values against whole-second bounds, both ends included', async () => {
    const [newest] = (await ticketingGet(sim, `/api/tickets?${RECENT}&count_elements=1`)).body.items;
    const ms = Date.parse(newest.last_update);
    const second = Math.floor(ms / 1000);
    const inside = await ticketingGet(sim, `/api/tickets?date_init=${second - 100}&date_end=${second + 1}&count_elements=200`);
    expect(inside.body.items.map((i: any) => i.id)).toContain(newest.id);
    // date_end * 1000 <= last_update_ms when the record has milliseconds past the boundary second.
    if (ms % 1000 !== 0) {
      const before = await ticketingGet(sim, `/api/tickets?date_init=${second - 100}&date_end=${second}&count_elements=200`);
      expect(before.body.items.map((i: any) => i.id)).not.toContain(newest.id);
    }
  });

  it('orders by last_update, DESC by default', async () => {
    const desc = (await ticketingGet(sim, `/api/users?${RECENT}&count_elements=50`)).body.items.map((i: any) => Date.parse(i.last_update));
    expect(desc).toEqual([...desc].sort((a, b) => b - a));
    const asc = (await ticketingGet(sim, `/api/users?${RECENT}&count_elements=50&order=ASC`)).body.items.map((i: any) => Date.parse(i.last_update));
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
  });

  it('uses the field names of the field tables, text fields beside coded ones', async () => {
    const [ticket] = (await ticketingGet(sim, `/api/tickets?${RECENT}&count_elements=1`)).body.items;
    for (const field of ['order_type_txt', 'order_status_text', 'ticket_type_txt', 'ticket_status_txt', 'ticket_price_description', 'u_aquired_address', 'user_held_zip_code', 'just_seasonticket_sales']) {
      expect(ticket).toHaveProperty(field);
    }
    expect(typeof ticket.ticket_released).toBe('string');
    expect(typeof ticket.ticket_price).toBe('string');
    expect(typeof ticket.id).toBe('string');
    expect(ticket.last_update).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const [member] = (await ticketingGet(sim, '/api/members?count_elements=1')).body.items;
    expect(member).toHaveProperty('ticket_pool_total_text');
    const [permission] = (await ticketingGet(sim, `/api/user_permission?${RECENT}&count_elements=1`)).body.items;
    expect(typeof permission.id_user).toBe('string');
    const [item] = (await ticketingGet(sim, '/api/merchandise?count_elements=1')).body.items;
    for (const field of ['from_redeemed_txt', 'redeem_status_txt', 'payment_type_txt', 'sale_channel_txt', 'prod_disccount']) expect(item).toHaveProperty(field);
    expect(typeof item.prod_conf).toBe('object');
  });

  it('spreads last_update over six years, so loaders must split windows', async () => {
    const oldest = (await ticketingGet(sim, '/api/merchandise?count_elements=1&order=ASC')).body.items[0];
    expect(NOW_S * 1000 - Date.parse(oldest.last_update)).toBeGreaterThan(5 * YEAR_S * 1000);
  });
});

describe('members variants', () => {
  it('serves the zero-based variant with required dates', async () => {
    const sim = await startTestSimulator({ membersVariant: 'zero-based' });
    try {
      expect((await ticketingGet(sim, '/api/members')).status).toBe(400);
      const page0 = await ticketingGet(sim, `/api/members?${RECENT}&count_elements=2&page=0`);
      const page1 = await ticketingGet(sim, `/api/members?${RECENT}&count_elements=2&page=1`);
      expect(page0.body.items).not.toEqual(page1.body.items);
    } finally {
      await sim.close();
    }
  });

  it('serves the one-based variant with optional dates, page 0 as page 1', async () => {
    const sim = await startTestSimulator({ membersVariant: 'one-based' });
    try {
      const page0 = await ticketingGet(sim, '/api/members?count_elements=2&page=0');
      const page1 = await ticketingGet(sim, '/api/members?count_elements=2&page=1');
      expect(page0.status).toBe(200);
      expect(page0.body.items).toEqual(page1.body.items);
    } finally {
      await sim.close();
    }
  });
});

describe('determinism, mutation and faults', () => {
  it('gives byte-identical data for a seed and a pinned clock', async () => {
    const a = await startTestSimulator({ seed: 9 });
    const b = await startTestSimulator({ seed: 9, ticketingToken: a.options.ticketingToken });
    const c = await startTestSimulator({ seed: 10, ticketingToken: a.options.ticketingToken });
    try {
      for (const path of ['/api/tickets?' + RECENT + '&count_elements=200&page=3', '/api/merchandise?count_elements=50', '/api/users?' + RECENT + '&count_elements=100']) {
        const [x, y, z] = await Promise.all([ticketingGet(a, path), ticketingGet(b, path), ticketingGet(c, path)]);
        expect(x.text).toBe(y.text);
        expect(x.text).not.toBe(z.text);
      }
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  it('moves records to now after each page with --mutate, so offset pages shift', async () => {
    const sim = await startTestSimulator({ mutate: 0.5 });
    try {
      const before = Number((await ticketingGet(sim, `/api/tickets?${RECENT}&count_elements=1`)).body.count);
      const window = `date_init=${NOW_S - 2 * YEAR_S}&date_end=${NOW_S - 1}`;
      for (let page = 1; page <= 4; page++) await ticketingGet(sim, `/api/tickets?${window}&count_elements=100&page=${page}`);
      const after = await ticketingGet(sim, `/api/tickets?${window}&count_elements=1`);
      // About 200 records anywhere in the resource moved to "now" (after the pinned clock);
      // the ones that were inside the fixed window left it, so its later pages shifted.
      expect(before - Number(after.body.count)).toBeGreaterThan(20);
      const touched = await ticketingGet(sim, `/api/tickets?date_init=${NOW_S}&date_end=${NOW_S + 3600}&count_elements=200`);
      expect(touched.body.items.length).toBeGreaterThan(150);
    } finally {
      await sim.close();
    }
  });

  it('fails a share of requests in the documented ways, and a retry can succeed', async () => {
    const sim = await startTestSimulator({ faults: 0.5, stallMs: 50 });
    try {
      const statuses = new Map<string, number>();
      for (let i = 0; i < 80; i++) {
        let key: string;
        try {
          const response = await fetch(`${sim.url}/api/tickets?${RECENT}&count_elements=5`, { headers: { authorization: `Basic ${sim.options.ticketingToken}` } });
          await response.json();
          key = String(response.status);
          if (response.status === 429 || response.status === 503) expect(response.headers.get('retry-after')).toBe('1');
        } catch {
          key = 'broken';
        }
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }
      expect(statuses.get('200')).toBeGreaterThan(15);
      for (const expected of ['500', '429', 'broken']) expect(statuses.get(expected), expected).toBeGreaterThan(0);
    } finally {
      await sim.close();
    }
  });
});

describe('admin changes', () => {
  it('touches the number of distinct records asked for, and they move to now', async () => {
    const sim = await startTestSimulator();
    try {
      const keys = sim.touchTicketing('tickets', { count: 300 });
      expect(new Set(keys).size).toBe(300);
      const moved = await ticketingGet(sim, `/api/tickets?date_init=${NOW_S}&date_end=${NOW_S + 3600}&count_elements=200`);
      expect(Number(moved.body.count)).toBe(300);
    } finally {
      await sim.close();
    }
  });

  it('adds copies of copies, and moves the clock forward on request, never back', async () => {
    const sim = await startTestSimulator({ scale: 0.002 });
    try {
      const tickets = () => [...sim.ticketingRecords('tickets')].length;
      const before = tickets();
      // Enough sales that random picks land on earlier sales.
      for (let k = 0; k < 20; k++) sim.addTicketing('tickets', before);
      expect(tickets()).toBe(21 * before);
      const later = Date.parse(TEST_NOW) + 3_600_000;
      const moved = await fetch(`${sim.url}/__admin/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to: new Date(later).toISOString() }) });
      expect(Date.parse(((await moved.json()) as { now: string }).now)).toBeGreaterThanOrEqual(later);
      expect(sim.clock.advanceTo(Date.parse(TEST_NOW))).toBeGreaterThanOrEqual(later);
    } finally {
      await sim.close();
    }
  });
});
