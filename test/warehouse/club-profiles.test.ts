import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUB_PROFILE_NAMES, CLUB_PROFILES, type ClubProfile, type ClubProfileName, clubMappingFiles } from '../../src/simulator/clubs/index.js';
import { FANLAKE } from '../../src/simulator/clubs/fanlake.js';
import { readClubFiles } from '../../src/models/club/club-files.js';
import { csvField } from '../../src/models/club/csv-table.js';
import type { Simulator } from '../../src/simulator/simulator.js';
import { runCli } from '../helpers/cli.js';
import { expectClose } from '../helpers/expect-close.js';
import { clubDirOf, sharedWarehouse } from '../helpers/shared-warehouse.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { runJson } from '../helpers/stage-json.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import {
  type ServedRecords, cents, consentReach, revenueBySeasonAndLine, seasonTicketsBySeason, servedRecords, spendByPerson, standingGrants, truePersons,
} from './club-truth.js';
import { cliEnv, runCliOk } from './identity-fixture.js';

/**
 * Each simulated club, extracted, loaded, built and checked by the real CLI with the club's
 * own mapping (its club folder, FANLAKE_CLUB_DIR): the headline figures equal what
 * club-truth.ts works out from the records and the club profile's declared meanings. And a
 * club whose codes fanlake's defaults do not know (nordvik without its folder) must fail
 * `check` and `run`, naming each unknown code, and never count a fan as reachable on a
 * channel the fan did not allow.
 */

const SCALE = 0.03;
const SEED = 31;
const TOP_FANS = 100;

interface Pipeline {
  sim: Simulator;
  club: ClubProfile;
  dataDir: string;
  env: Record<string, string>;
  records: ServedRecords;
  persons: Map<string, number>;
}

/**
 * A simulator of the club and a copy of its warehouse, extracted, loaded and built by the real
 * CLI (sharedWarehouse: the three of nordvik share their extract and load, the two without
 * the club's mapping their build too): built with the club's folder written from its profile
 * (`own`), with none (`none`: fanlake's defaults), or with an empty one (`empty`, the same
 * meanings: a file the folder lacks is the default's).
 */
async function startPipeline(name: ClubProfileName, mapping: 'own' | 'none' | 'empty'): Promise<Pipeline> {
  const simulator = { scale: SCALE, seed: SEED, clubProfile: name };
  const sim = await startTestSimulator(simulator);
  const dataDir = await sharedWarehouse({ simulator, ...(mapping === 'own' ? { club: clubMappingFiles(CLUB_PROFILES[name]) } : {}) });
  const env = cliEnv(sim, dataDir);
  if (mapping === 'own') env.FANLAKE_CLUB_DIR = clubDirOf(dataDir);
  if (mapping === 'empty') env.FANLAKE_CLUB_DIR = mkdtempSync(join(tmpdir(), 'fanlake-club-empty-'));
  return { sim, club: sim.club, dataDir, env, records: servedRecords(sim), persons: truePersons(sim) };
}

/** The persons behind each fan, through fan_identity_links and the simulator's truth. */
async function personsOfFans(p: Pipeline): Promise<Map<string, Set<number>>> {
  const links = await queryWarehouse(p.dataDir, 'select fan_id, system, record_id from marts.fan_identity_links');
  const fans = new Map<string, Set<number>>();
  for (const link of links) {
    const person = p.persons.get(`${link.system}:${link.record_id}`);
    if (person !== undefined) fans.set(link.fan_id, (fans.get(link.fan_id) ?? new Set()).add(person));
  }
  return fans;
}

/** Revenue per season and product line equals the truth's, to the øre. */
async function expectRevenue(p: Pipeline): Promise<void> {
  const truth = revenueBySeasonAndLine(p.club, p.records.tickets, p.records.merchandise);
  expect(new Set([...truth.keys()].map((key) => key.split('|')[1])), 'every product line sold').toEqual(new Set(['ticket', 'season_ticket', 'merchandise']));
  const rows = await queryWarehouse(p.dataDir, `
    select coalesce(season, '') as season, product_line, sum(revenue)::varchar as revenue
    from marts.revenue_monthly group by all having sum(revenue) <> 0`);
  const actual = new Map(rows.map((row) => [`${row.season}|${row.product_line}`, cents(row.revenue)]));
  expect(Object.fromEntries([...actual].sort())).toEqual(Object.fromEntries([...truth].sort()));
}

/** Season tickets sold and active per season equal the truth's. */
async function expectSeasonTickets(p: Pipeline): Promise<void> {
  const truth = seasonTicketsBySeason(p.club, p.records.tickets);
  expect([...truth.values()].some((season) => season.active > 0 && season.active < season.sold), 'active and inactive season tickets').toBe(true);
  const rows = await queryWarehouse(p.dataDir, `
    select season, count(*)::integer as sold, count(*) filter (where is_active)::integer as active
    from marts.fct_season_tickets group by season`);
  expect(Object.fromEntries(rows.map((row) => [row.season, { sold: row.sold, active: row.active }]))).toEqual(Object.fromEntries(truth));
}

/** Consented and reachable fans per purpose and channel within a few percent of the truth's persons. */
async function expectConsentReach(p: Pipeline): Promise<void> {
  const truth = consentReach(p.club, p.records, p.persons);
  const rows = await queryWarehouse(p.dataDir, 'select * from marts.consent_coverage order by purpose, channel');
  expect(rows.map((row) => `${row.purpose}/${row.channel}`)).toEqual([...truth.keys()]);
  for (const row of rows) {
    const expected = truth.get(`${row.purpose}/${row.channel}`)!;
    const what = `${row.purpose}/${row.channel}`;
    // fans, through identity resolution: within a few percent
    expectClose(Number(row.consented_fans), expected.consented, 0.03, 2, `${what} consented`);
    expectClose(Number(row.reachable_fans), expected.reachable, 0.03, 2, `${what} reachable`);
    expect(expected.consented, `${what}: the data has consents to count`).toBeGreaterThan(0);
  }
}

/** The top fans by spend are the top persons with their spend. */
async function expectTopFans(p: Pipeline): Promise<void> {
  const spend = spendByPerson(p.club, p.records, p.persons);
  const truthTop = [...spend.values()].filter((amount) => amount > 0).sort((a, b) => b - a).slice(0, TOP_FANS);
  const rows = await queryWarehouse(p.dataDir, 'select fan_id, total_spend::varchar as total_spend, spend_rank from marts.top_fans order by spend_rank, fan_id');
  expect(rows.length).toBeGreaterThanOrEqual(Math.min(TOP_FANS, truthTop.length));
  const top = rows.slice(0, truthTop.length).map((row) => cents(row.total_spend));
  expectClose(top.reduce((a, b) => a + b, 0), truthTop.reduce((a, b) => a + b, 0), 0.01, 0, 'spend of the top fans');
  const fans = await personsOfFans(p);
  const agreeing = rows.filter((row) => {
    const persons = [...(fans.get(row.fan_id) ?? [])];
    return persons.length === 1 && spend.get(persons[0]!) === cents(row.total_spend);
  });
  expect(agreeing.length / rows.length, 'top fans who are one true person with that person\'s spend').toBeGreaterThanOrEqual(0.97);
}

for (const name of CLUB_PROFILE_NAMES) {
  describe(`${name} with its own mapping: the headline figures equal the club's truth (scale ${SCALE}, seed ${SEED})`, () => {
    let p: Pipeline;
    beforeAll(async () => {
      p = await startPipeline(name, 'own');
    }, 180_000);
    afterAll(async () => {
      await p?.sim.close();
    });

    it('check passes', async () => {
      const check = await runJson(['check'], p.env);
      expect(check.code, `${check.stdout}\n${check.stderr}`).toBe(0);
    }, 60_000);

    it('revenue per season and product line, to the øre', () => expectRevenue(p));
    it('season tickets per season, and how many are active', () => expectSeasonTickets(p));
    it('consent reach per purpose and channel', () => expectConsentReach(p));
    it(`the top ${TOP_FANS} fans by spend are the top persons with their spend`, () => expectTopFans(p));
  });
}

describe('nordvik with the default mapping (no club folder)', () => {
  let p: Pipeline;
  beforeAll(async () => {
    p = await startPipeline('nordvik', 'none');
  }, 180_000);
  afterAll(async () => {
    await p?.sim.close();
  });

  /** What the defaults (the fanlake profile's meanings) cannot place, each with its record count. */
  function unknownCodes(): { what: string; parts: string[]; counts: number[] }[] {
    const { records, club } = p;
    const count = <T>(items: T[], test: (item: T) => boolean) => items.filter(test).length;
    const codes: { what: string; parts: string[]; counts: number[] }[] = [];
    for (const consent of club.ticketingConsents) {
      if (FANLAKE.ticketingConsents.some((known) => known.id === consent.id && known.name === consent.name)) continue;
      codes.push({ what: `ticketing consent ${consent.id}`, parts: [String(consent.id), consent.name], counts: [count(records.permissions, (r) => r.id_consent_basic === consent.id)] });
    }
    for (const text of club.consentTexts) {
      if (FANLAKE.consentTexts.some((known) => known.id === text.id && known.text === text.text)) continue;
      codes.push({ what: `consent text ${text.id}`, parts: [String(text.id), text.text], counts: [count(records.consents, (r) => String(r.links.consentText) === String(text.id))] });
    }
    for (const status of club.orderStatuses) {
      if (FANLAKE.orderStatuses.some((known) => known.id === status.id && known.name === status.name)) continue;
      const tickets = count(records.tickets, (r) => r.order_status === status.id);
      const lines = count(records.merchandise, (r) => r.order_status === status.id);
      codes.push({ what: `order status ${status.id}`, parts: [String(status.id), status.name], counts: [tickets, lines, tickets + lines] });
    }
    for (const type of club.ticketOrderTypes) {
      if (FANLAKE.ticketOrderTypes.some((known) => known.id === type.id)) continue;
      codes.push({ what: `order type ${type.id}`, parts: [String(type.id), type.name], counts: [count(records.tickets, (r) => r.order_type === type.id)] });
    }
    return codes;
  }

  /** Whether a line names the code (its id and its name or text, as written or JSON-escaped) and one of its counts. */
  function namesCode(line: string, code: { parts: string[]; counts: number[] }): boolean {
    const [id, name] = code.parts as [string, string];
    if (!line.includes(name) && !line.includes(JSON.stringify(name).slice(1, -1))) return false;
    const numbers = line.match(/\d+/g) ?? [];
    const times = (n: string) => numbers.filter((number) => number === n).length;
    // the id is one number on the line; a count equal to it must be there a second time
    return times(id) > 0 && code.counts.some((n) => times(String(n)) > (String(n) === id ? 1 : 0));
  }

  /** Each unknown code named on one line of the output, with one of its record counts. */
  function expectNamed(output: string): void {
    const codes = unknownCodes();
    expect(codes.map((code) => code.what)).toEqual([
      'ticketing consent 1', 'ticketing consent 2', 'ticketing consent 3', 'ticketing consent 6', 'ticketing consent 8',
      'consent text 501', 'consent text 502', 'consent text 503', 'consent text 504', 'consent text 505', 'consent text 506',
      'order status 4', 'order type 16',
    ]);
    for (const code of codes) expect(Math.max(...code.counts), `${code.what} is in the data`).toBeGreaterThan(0);
    const missing = codes.filter((code) => !output.split('\n').some((line) => namesCode(line, code)));
    expect(missing.map((code) => `${code.what} (${code.parts.join(', ')}; ${code.counts.join(' or ')} records)`), output.slice(-4000)).toEqual([]);
  }

  it('check exits 1 and names each unmapped or contradicting consent, order status and order type with its record count', async () => {
    const check = await runCli(['check'], p.env);
    expect(check.code, `${check.stdout}\n${check.stderr}`).toBe(1);
    expectNamed(`${check.stdout}\n${check.stderr}`);
  }, 120_000);

  it('run exits 1 and names them too; with --strict it renders no report on such figures', async () => {
    const run = await runCli(['run', '--strict'], p.env);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
    expectNamed(`${run.stdout}\n${run.stderr}`);
    expect(run.stdout).toMatch(/^report\s+skipped\b/m);
  }, 180_000);

  it('no consent figure counts a fan as consented or reachable on a channel the fan did not allow', async () => {
    // a fan may count only where a person behind it allowed the purpose on the channel on some record
    const grants = standingGrants(p.club, p.records, p.persons);
    const fans = await personsOfFans(p);
    const allowedBy = (fanId: string, purpose: string, channel: string) => [...(fans.get(fanId) ?? [])].some((person) => grants.has(`${person}|${purpose}|${channel}`));
    const rows = await queryWarehouse(p.dataDir, 'select purpose, channel, consented_fans, reachable_fans from marts.consent_coverage');
    for (const row of rows) {
      // the bucket of decisions on consents the mapping does not know reaches nobody
      if (row.purpose === 'unmapped') {
        expect(Number(row.reachable_fans), 'reachable through unmapped consents').toBe(0);
        continue;
      }
      const allowing = [...fans.keys()].filter((fanId) => allowedBy(fanId, row.purpose, row.channel)).length;
      const what = `${row.purpose}/${row.channel}: fans with a person who allowed it: ${allowing}`;
      expect(Number(row.consented_fans), `${what}; consented`).toBeLessThanOrEqual(allowing);
      expect(Number(row.reachable_fans), `${what}; reachable`).toBeLessThanOrEqual(allowing);
    }

    // fan by fan: every grant the warehouse holds is one a person behind the fan gave
    const granted = await queryWarehouse(p.dataDir, `select fan_id, purpose, coalesce(channel, 'none') as channel from intermediate.int_fan_consents where is_granted`);
    const unfounded = granted.filter((row) => !allowedBy(row.fan_id, row.purpose, row.channel));
    expect(unfounded.slice(0, 10), `${unfounded.length} grants no person behind the fan gave`).toEqual([]);

    // the case in point: fans who allowed SMS by ticketing consent 1 (fanlake's 1 is e-mail) and never club e-mail
    const smsOnly = new Set(p.records.permissions
      .filter((permission) => permission.id_consent_basic === 1 && permission.decision === true)
      .map((permission) => p.persons.get(`ticketing_user:${permission.id_user}`))
      .filter((person) => person !== undefined && !grants.has(`${person}|club_marketing|email`)));
    expect(smsOnly.size, 'the data has such fans').toBeGreaterThan(0);
    const emailed = granted.filter((row) => row.purpose === 'club_marketing' && row.channel === 'email' && [...(fans.get(row.fan_id) ?? [])].some((person) => smsOnly.has(person)) && !allowedBy(row.fan_id, 'club_marketing', 'email'));
    expect(emailed.map((row) => row.fan_id), 'counted as allowing club e-mail').toEqual([]);
  });
});

describe('nordvik with an empty club folder: fanlake doctor, --write, the club confirms, and the figures are right', () => {
  let p: Pipeline;
  let clubDir: string;
  beforeAll(async () => {
    p = await startPipeline('nordvik', 'empty');
    clubDir = p.env.FANLAKE_CLUB_DIR!;
  }, 180_000);
  afterAll(async () => {
    await p?.sim.close();
  });

  interface Finding { mapping: string; source: string; codeId: number | null; codeName: string | null; records: number; state: string }
  const doctor = async (...args: string[]) => {
    const result = await runCli(['doctor', '--format', 'json', ...args], p.env);
    return { code: result.code, findings: (JSON.parse(result.stdout) as { findings: Finding[] }).findings };
  };

  it('doctor exits 1 listing every consent, status, order type and channel to map, with counts; --write suggests, the club confirms, doctor exits 0 and the figures equal the truth', async () => {
    const first = await doctor();
    expect(first.code).toBe(1);
    const open = first.findings.filter((finding) => finding.state !== 'mapped');
    const named = (mapping: string) => open.filter((finding) => finding.mapping === mapping).map((finding) => `${finding.source} ${finding.codeId ?? ''} ${finding.codeName}`.replace('  ', ' ')).sort();
    expect(named('consent')).toEqual([
      ...p.club.consentTexts.map((text) => `engagement ${text.id} ${text.text}`),
      ...p.club.ticketingConsents.map((consent) => `ticketing ${consent.id} ${consent.name}`),
    ].sort());
    expect(named('order_status')).toEqual(['merchandise 4 AwaitingPayment', 'tickets 4 AwaitingPayment']);
    expect(named('order_type')).toEqual(['tickets 16 GiftCard']);
    // the default knows merchandise's App; every other spelling of this club is new
    expect(named('sales_channel')).toEqual(['merchandise Nettbutikk', 'merchandise Stadion', 'tickets App', 'tickets Billettkontor', 'tickets Partner', 'tickets Web']);
    for (const finding of open) expect(finding.records, `${finding.mapping} ${finding.codeName}`).toBeGreaterThan(0);

    const written = await doctor('--write');
    expect(written.code).toBe(1);
    expect(written.findings.filter((finding) => finding.state !== 'mapped').every((finding) => finding.state === 'suggested')).toBe(true);

    // The club reads each suggestion: what the words made plain it confirms, the rest it writes
    // from what it knows its consents mean (here, the profile's declaration).
    const consentFile = (await readClubFiles(clubDir)).find((file) => file.name === 'consent_meanings')!;
    const truthOf = (system: string, id: number) =>
      (system === 'ticketing' ? p.club.ticketingConsents.find((c) => c.id === id) : p.club.consentTexts.find((t) => t.id === id))!;
    const groups = new Map<string, typeof consentFile.rows>();
    for (const row of consentFile.rows.filter((candidate) => !candidate.confirmed)) {
      const key = `${String(row.system)}|${String(row.consent_id)}|${String(row.consent_name)}`;
      groups.set(key, [...(groups.get(key) ?? []), row]);
    }
    const corrected: string[] = [];
    const lines = consentFile.rows.filter((row) => row.confirmed).map((row) => [row.system, row.consent_id, row.consent_name, row.purpose, row.channel, row.display_name, 'yes']);
    for (const rows of groups.values()) {
      const [first] = rows as [(typeof rows)[number]];
      const truth = truthOf(String(first.system), Number(first.consent_id));
      const plain = rows.every((row) => row.purpose === truth.purpose)
        && JSON.stringify(rows.map((row) => row.channel ?? 'none').sort()) === JSON.stringify((truth.channels.length ? [...truth.channels] : ['none']).sort());
      if (!plain) corrected.push(`${String(first.system)} ${String(first.consent_id)}`);
      const meant = plain ? rows.map((row) => row.channel) : truth.channels.length ? [...truth.channels] : [null];
      for (const channel of meant) lines.push([first.system, first.consent_id, first.consent_name, truth.purpose, channel, first.display_name, 'yes']);
    }
    const header = 'system,consent_id,consent_name,purpose,channel,display_name,confirmed';
    writeFileSync(join(clubDir, 'consent_meanings.csv'), `${[header, ...lines.map((fields) => fields.map((field) => csvField(field as string | number | null)).join(','))].join('\n')}\n`);
    // the words made all but the partner consent on two channels plain
    expect(corrected).toEqual(['ticketing 6']);
    for (const file of ['order_status_groups.csv', 'order_type_groups.csv', 'sales_channels.csv']) {
      const path = join(clubDir, file);
      writeFileSync(path, readFileSync(path, 'utf8').replace(/,no$/gm, ',yes'));
    }

    const after = await doctor();
    expect(after.findings.filter((finding) => finding.state !== 'mapped')).toEqual([]);
    expect(after.code).toBe(0);
    await runCliOk(['build'], p.env);
    const check = await runCli(['check'], p.env);
    expect(check.code, `${check.stdout}\n${check.stderr}`).toBe(0);
    await expectRevenue(p);
    await expectSeasonTickets(p);
    await expectConsentReach(p);
    await expectTopFans(p);
  }, 300_000);
});
