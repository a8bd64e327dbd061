import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUB_PROFILES, clubMappingFiles } from '../../src/simulator/clubs/index.js';
import type { Simulator } from '../../src/simulator/simulator.js';
import type { Item } from '../../src/simulator/store/cursor-resource.js';
import { REPO, runCli, spawnCli, watch } from '../helpers/cli.js';
import { TEST_NOW, startTestSimulator, ticketingGet } from '../helpers/simulator.js';

const priced = (ticket: Item) => Number(ticket.ticket_price) > 0;
const kickoff = (ticket: Item) => Date.parse(`${ticket.match_date as string}T${ticket.match_time as string}Z`);

/** The nordvik club profile as src/simulator/clubs/nordvik.ts declares it. */
describe('the nordvik club profile', () => {
  let sim: Simulator;
  let tickets: Item[];
  beforeAll(async () => {
    sim = await startTestSimulator({ scale: 0.1, clubProfile: 'nordvik' });
    tickets = [...sim.ticketingRecords('tickets')];
  });
  afterAll(() => sim.close());

  const sales = () => tickets.filter((ticket) => ticket.order_type === 12 && priced(ticket));
  const paid = (record: Item) => record.order_status_text === 'Completed';

  it('sells season tickets as priced SeasonTicket tickets on the season\'s first league match, with no virtual match', () => {
    expect(tickets.every((ticket) => ticket.just_seasonticket_sales === false)).toBe(true);
    expect(tickets.some((ticket) => ticket.league_name === 'Season tickets')).toBe(false);
    expect(sales().length).toBeGreaterThan(30);
    for (const sale of sales()) {
      const league = tickets.filter((ticket) => ticket.season === sale.season && ticket.league_name === 'Eliteserien');
      expect(kickoff(sale), `${sale.id as string} is on its season's first league match`).toBe(Math.min(...league.map(kickoff)));
      expect(sale).toMatchObject({ order_type_txt: 'SeasonTicket', league_name: 'Eliteserien', season: sale.season });
      expect(sale.id_season_ticket).toMatch(new RegExp(`^ST-${sale.season as string}-\\d+$`));
    }
    expect(new Set(sales().map((sale) => sale.id_season_ticket)).size).toBe(sales().length);
    // single tickets are sold on that match too
    const first = new Set(sales().map((sale) => sale.id_event));
    expect(tickets.some((ticket) => first.has(ticket.id_event) && ticket.order_type === 6)).toBe(true);
  });

  it('gives a paid season ticket a zero-price seat carrying its id on every other league match of its season', () => {
    expect(sales().some((sale) => !paid(sale)), 'an unpaid season ticket among them').toBe(true);
    for (const sale of sales()) {
      const seats = tickets.filter((ticket) => ticket.id_season_ticket === sale.id_season_ticket && ticket.id !== sale.id);
      if (!paid(sale)) {
        expect(seats, `a ${sale.order_status_text as string} season ticket gives no seats`).toEqual([]);
        continue;
      }
      const others = new Set(tickets.filter((ticket) => ticket.season === sale.season && ticket.league_name === 'Eliteserien' && ticket.id_event !== sale.id_event).map((ticket) => ticket.id_event));
      expect(seats.map((seat) => seat.id_event).sort()).toEqual([...others].sort());
      for (const seat of seats) {
        expect(seat).toMatchObject({ order_type: 12, ticket_price: '0.00', order_status_text: 'Completed', id_sale_order: sale.id_sale_order, user_held_id: sale.user_held_id });
      }
    }
    for (const season of new Set(sales().map((sale) => sale.season as string))) {
      const listed = sim.ticketing.tickets.seasonTicketSales(season).map((index) => sim.ticketing.tickets.record(index).id);
      expect(listed.sort()).toEqual(sales().filter((sale) => sale.season === season && paid(sale)).map((sale) => sale.id).sort());
    }
  });

  it('sells a few single tickets as priced GiftCard orders and leaves a few orders awaiting payment', () => {
    const singles = tickets.filter((ticket) => ticket.order_type !== null && ticket.order_type !== 12);
    const giftCards = singles.filter((ticket) => ticket.order_type === 16);
    expect(giftCards.every((ticket) => ticket.order_type_txt === 'GiftCard' && priced(ticket))).toBe(true);
    expect(giftCards.length / singles.length).toBeGreaterThan(0.01);
    expect(giftCards.length / singles.length).toBeLessThan(0.06);

    const merchandise = [...sim.ticketingRecords('merchandise')];
    for (const [records, text] of [[tickets, 'order_status_text'], [merchandise, 'order_status_txt']] as const) {
      const pairs = new Set(records.map((record) => `${record.order_status as number}:${record[text] as string}`));
      expect(pairs).toEqual(new Set(['1:Completed', '2:Cancelled', '3:Refunded', '4:AwaitingPayment']));
      const pending = records.filter((record) => record.order_status === 4).length / records.length;
      expect(pending).toBeGreaterThan(0.01);
      expect(pending).toBeLessThan(0.08);
    }
    // an order awaiting payment holds its seats without paying for them
    expect(new Set(tickets.filter((ticket) => ticket.order_status === 4).map((ticket) => ticket.id_ticket_status))).toEqual(new Set([2]));
  });

  it('spells its sales channels its own way; the app is "App" in both systems', () => {
    expect(new Set(tickets.map((ticket) => ticket.order_channel))).toEqual(new Set(['Web', 'App', 'Billettkontor', 'Partner']));
    const merchandise = [...sim.ticketingRecords('merchandise')];
    expect(new Set(merchandise.map((line) => line.sale_channel_txt))).toEqual(new Set(['Nettbutikk', 'App', 'Stadion']));
    for (const line of merchandise) expect(line.in_app_transaction, String(line.id)).toBe(line.sale_channel_txt === 'App');
  });

  it('serves its own consent types and texts: ticketing id 1 is SMS here, one text disabled, one required', () => {
    const permissions = [...sim.ticketingRecords('user_permissions')];
    const served = new Set(permissions.map((permission) => `${permission.id_consent_basic as number}|${permission.name as string}|${permission.consent_description as string}`));
    expect(served).toEqual(new Set(sim.club.ticketingConsents.map((consent) => `${consent.id}|${consent.name}|${consent.description}`)));
    expect(permissions.find((permission) => permission.id_consent_basic === 1)!.name).toBe('SMS-varsler');

    const texts = [...sim.engagementRecords('consent_texts')];
    expect(texts.map((text) => Number(text.id))).toEqual([501, 502, 503, 504, 505, 506]);
    expect(texts.filter((text) => text.isEnabled === false).map((text) => text.id)).toEqual(['505']);
    expect(texts.filter((text) => text.isRequired === true).map((text) => text.id)).toEqual(['506']);
    const consents = [...sim.engagementRecords('consents')];
    expect(new Set(consents.map((consent) => (consent.links as Item).consentText))).toEqual(new Set(texts.map((text) => text.id)));
    expect(consents.some((consent) => consent.isRevoked === true)).toBe(true);
  });

  it('puts ApiApp people on a network of its own with no systemId, their externalId still a ticketing user id', async () => {
    const people = [...sim.engagementRecords('people')];
    const identities = new Map([...sim.engagementRecords('identities')].map((identity) => [identity.id, identity]));
    const apiApp = people.filter((person) => identities.has(person.id));
    expect(apiApp.length).toBeGreaterThan(0);
    expect(new Set(apiApp.map((person) => person.network))).toEqual(new Set(['fanlake-crm', 'superoffice']));
    expect(people.every((person) => person.systemId === null && person.network !== 'apiApp')).toBe(true);
    const userIds = new Set([...sim.ticketingRecords('users')].map((user) => String(user.id)));
    const linked = apiApp.filter((person) => person.network === 'fanlake-crm');
    expect(linked.every((person) => userIds.has(person.externalId as string))).toBe(true);
    // the identity read by externalId finds them as before
    const person = linked[0]!;
    const response = await fetch(`${sim.url}/v2/${sim.options.orgId}/identities?externalId=${person.externalId as string}`, {
      headers: { authorization: `Basic ${sim.options.engagementApiKey}` },
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as Item).id).toBe(person.id);
  });

  it('serves the same bytes in replay mode', async () => {
    const replay = await startTestSimulator({ scale: 0.1, clubProfile: 'nordvik', replay: true, admin: false, ticketingToken: sim.options.ticketingToken });
    try {
      const now = Date.parse(TEST_NOW) / 1000;
      let served = '';
      for (let page = 0; page < 5; page++) {
        const path = `/api/tickets?date_init=${now - 2 * 365 * 86_400}&date_end=${now}&count_elements=200&page=${page}&order=ASC`;
        const [live, replayed] = [await ticketingGet(sim, path), await ticketingGet(replay, path)];
        expect(replayed.text).toBe(live.text);
        served += live.text;
      }
      expect(served).toContain('"AwaitingPayment"');
    } finally {
      await replay.close();
    }
  });
});

describe('club mapping files', () => {
  /** A file as DuckDB's CSV reader takes it: header row, RFC 4180 quoting. */
  async function readCsv(text: string): Promise<Record<string, string>[]> {
    const path = join(mkdtempSync(join(tmpdir(), 'fanlake-club-csv-')), 'file.csv');
    writeFileSync(path, text);
    const instance = await DuckDBInstance.create(':memory:');
    try {
      const connection = await instance.connect();
      const reader = await connection.runAndReadAll(`select * from read_csv('${path}', header = true, all_varchar = true, quote = '"', escape = '"')`);
      connection.closeSync();
      return reader.getRowObjectsJson() as Record<string, string>[];
    } finally {
      instance.closeSync();
    }
  }

  for (const [name, club] of Object.entries(CLUB_PROFILES)) {
    it(`${name}: every served code and text reads back with its declared meaning`, async () => {
      const files = clubMappingFiles(club);
      expect(Object.keys(files).sort()).toEqual(['consent_meanings.csv', 'order_status_groups.csv', 'order_type_groups.csv', 'sales_channels.csv']);
      const consents = await readCsv(files['consent_meanings.csv']!);
      expect(Object.keys(consents[0]!)).toEqual(['system', 'consent_id', 'consent_name', 'purpose', 'channel', 'display_name']);
      for (const consent of club.ticketingConsents) {
        const rows = consents.filter((row) => row.system === 'ticketing' && row.consent_id === String(consent.id));
        expect(rows.map((row) => [row.consent_name, row.purpose, row.channel ?? ''])).toEqual(
          (consent.channels.length ? consent.channels : ['']).map((channel) => [consent.name, consent.purpose, channel]),
        );
      }
      for (const text of club.consentTexts) {
        const rows = consents.filter((row) => row.system === 'engagement' && row.consent_id === String(text.id));
        expect(rows.map((row) => [row.consent_name, row.purpose, row.channel])).toEqual(text.channels.map((channel) => [text.text, text.purpose, channel]));
      }
      expect(consents).toHaveLength(club.ticketingConsents.reduce((n, c) => n + Math.max(1, c.channels.length), 0) + club.consentTexts.reduce((n, t) => n + t.channels.length, 0));

      const statuses = await readCsv(files['order_status_groups.csv']!);
      expect(statuses).toEqual(club.orderStatuses.map((status) => ({ order_status_id: String(status.id), order_status_name: status.name, status_group: status.group })));
      const types = await readCsv(files['order_type_groups.csv']!);
      expect(types.map((type) => `${type.order_type_id}:${type.order_type_name}:${type.product_line}`).sort()).toEqual(
        club.ticketOrderTypes.map((type) => `${type.id}:${type.name}:${type.productLine}`).sort(),
      );
      const channels = await readCsv(files['sales_channels.csv']!);
      expect(channels.filter((row) => row.is_app === 'true').map((row) => `${row.resource}:${row.channel}`)).toEqual(
        [...club.ticketChannels.filter((c) => c.isApp).map((c) => `tickets:${c.name}`), ...club.merchandiseChannels.filter((c) => c.isApp).map((c) => `merchandise:${c.name}`)],
      );
      expect(channels).toHaveLength(club.ticketChannels.length + club.merchandiseChannels.length);
    });
  }

  it('fanlake: the files are the default mapping shipped in defaults/club/, byte for byte', () => {
    for (const [file, text] of Object.entries(clubMappingFiles(CLUB_PROFILES.fanlake))) {
      expect(readFileSync(join(REPO, 'defaults', 'club', file), 'utf8'), file).toBe(text);
    }
  });

  it('nordvik: a text with quotes and commas survives the quoting', async () => {
    const rows = await readCsv(clubMappingFiles(CLUB_PROFILES.nordvik)['consent_meanings.csv']!);
    expect(rows.find((row) => row.consent_id === '503')!.consent_name).toBe('Ja, send meg varsler i appen om mål og kamphendelser ("push").');
  });
});

describe('fanlake simulate --club-profile', () => {
  it('serves the named club and explains the flag in --help', async () => {
    const help = await runCli(['simulate', '--help'], {});
    expect(help.stdout).toMatch(/--club-profile[\s\S]*nordvik/);
    const bad = await runCli(['simulate', '--club-profile', 'elsewhere', '--port', '0'], {});
    expect(bad.code).toBe(2);

    const sim = watch(spawnCli(['simulate', '--club-profile', 'nordvik', '--port', '0', '--scale', '0.02', '--now', TEST_NOW], { FANLAKE_TICKETING_TOKEN: 'club-token' }));
    try {
      const [, url] = await sim.waitFor(/listening on (http:\/\/\S+)/);
      const response = await fetch(`${url}/api/user_permission?date_init=${Date.parse(TEST_NOW) / 1000 - 2 * 365 * 86_400}&date_end=${Date.parse(TEST_NOW) / 1000}&count_elements=200`, { headers: { authorization: 'Basic club-token' } });
      const body = (await response.json()) as { data?: Item[] } | Item[];
      expect(JSON.stringify(body)).toContain('SMS-varsler');
      expect(sim.stderr + sim.stdout).toContain('club nordvik');
    } finally {
      sim.child.kill('SIGTERM');
      await sim.done;
    }
  }, 30_000);
});
