import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildModels } from '../../src/models/build-models.js';
import { checksFailed, runChecks } from '../../src/models/checks/run-checks.js';
import type { TestResult } from '../../src/models/checks/run-checks.js';
import { loadWarehouse } from '../../src/load/load-warehouse.js';
import { writeRun } from '../load/raw-fixtures.js';
import { inTransaction, openDatabase, withConnection } from '../../src/core/duckdb.js';
import { join } from 'node:path';
import { ChangedKeys, recordRawErasure } from '../../src/warehouse/changed-keys.js';
import { workspace } from './fixtures.js';
import type { Workspace } from './fixtures.js';

// A real warehouse in a temp folder, built and checked as `fanlake build` and `check` do: a
// declared test on a model written by key tests the rows its builds changed since it last
// passed, and finds what a test of the whole table finds.

let ws: Workspace;

/** The workspace without its member models, for tests of raw tables and models of their own. */
async function removeMemberModels(): Promise<void> {
  for (const file of ['intermediate/int_clubs.sql', 'marts/dim_member.sql', 'marts/member_visits.sql']) await ws.remove(file);
}

const PROJECT = {
  'sources.json': JSON.stringify({ 'raw.fans': { tests: ['unique(id)'] } }),
  'intermediate/int_clubs.sql': `-- materialized: table
-- unique_key: club_id
-- test: unique(club_id)
-- test: not_null(club_name)
select id as club_id, name as club_name from raw.clubs
`,
  'marts/dim_member.sql': `-- materialized: table
-- unique_key: member_id
-- test: unique(member_id)
-- test: unique(email)
-- test: not_null(name, email)
-- test: accepted_values(tier: gold, silver)
-- test: relationships(club_id -> intermediate.int_clubs.club_id)
select id as member_id, name, email, tier, club_id from raw.fans
`,
  'marts/member_visits.sql': `-- materialized: incremental
-- unique_key: visit_id
-- test: not_null(member_id)
-- test: relationships(member_id -> marts.dim_member.member_id)
select id as visit_id, member_id, day from raw.visits
where id > coalesce((select max(visit_id) from marts.member_visits), 0)
`,
};

/** 1,000 members in two clubs, a visit each: big enough that a test of 3 rows is a different thing from one of all. */
async function seed(): Promise<void> {
  await ws.exec(`
      create schema if not exists raw;
      create or replace table raw.clubs as select *, timestamptz '2024-05-01 00:00:00+00' as _extracted_at from (values (1, 'North'), (2, 'South')) as clubs(id, name);
      create or replace table raw.fans as
          select range::integer as id, 'fan ' || range as name, 'fan' || range || '@example.com' as email, case when range % 2 = 0 then 'gold' else 'silver' end as tier,
              (1 + range % 2)::integer as club_id, timestamptz '2024-05-01 00:00:00+00' as _extracted_at
          from range(1, 1001);
      create or replace table raw.visits as select range::integer as id, range::integer as member_id, date '2024-05-01' as day, timestamptz '2024-05-01 00:00:00+00' as _extracted_at from range(1, 1001);
  `);
}

/** Changes raw tables as a load does: what it wrote, and every table's newest `_extracted_at` an hour on, so the build sees a new state. */
async function load(sql: string): Promise<void> {
  await ws.exec(`${sql};
      ${['clubs', 'fans', 'visits'].map((table) => `update raw.${table} set _extracted_at = _extracted_at + interval 1 hour`).join(';\n')}`);
}

const check = (all = false) => runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, all });
const build = () => buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });

function byName(results: TestResult[], name: string): TestResult {
  const result = results.find((candidate) => candidate.name === name);
  if (!result) throw new Error(`no result ${name}; have ${results.map((r) => r.name).join(', ')}`);
  return result;
}

/** What a run says of each test, apart from how it read the rows and how long it took. */
const verdicts = (results: TestResult[]) => results.map((r) => [r.name, r.status, r.failures, r.sample]);
const changedOnly = (results: TestResult[]) => results.filter((r) => r.changedRowsOnly).map((r) => r.name);

beforeEach(async () => {
  ws = await workspace();
  await ws.write(PROJECT);
  await seed();
});

afterEach(async () => {
  await ws.cleanup();
});

describe('check of the rows that changed', () => {
  it('tests only the changed rows of a model written by key, and finds a null, a repeated value, an unknown value and an orphan among them', async () => {
    await build();
    const first = await check();
    expect(checksFailed(first)).toBe(false);
    expect(changedOnly(first)).toEqual([]);

    await load(`
        update raw.fans set name = null where id = 7;
        update raw.fans set email = 'fan8@example.com' where id = 9;
        update raw.fans set tier = 'bronze' where id = 10;
        insert into raw.fans values (1001, 'new fan', 'new@example.com', 'gold', 3, timestamptz '2024-05-01 00:00:00+00');
        insert into raw.visits values (1001, 1001, date '2024-05-02', timestamptz '2024-05-01 00:00:00+00');
    `);
    await build();
    const second = await check();

    // int_clubs was built again (its raw table was read again), to the same rows: its tests are carried
    expect(second.filter((r) => r.name.startsWith('intermediate.int_clubs')).every((r) => r.carriedFrom)).toBe(true);
    expect(changedOnly(second)).toEqual([
      'marts.dim_member: unique(member_id)',
      'marts.dim_member: unique(email)',
      'marts.dim_member: not_null(name, email)',
      'marts.dim_member: accepted_values(tier)',
      'marts.dim_member: relationships(club_id -> intermediate.int_clubs.club_id)',
      'marts.member_visits: not_null(member_id)',
      'marts.member_visits: relationships(member_id -> marts.dim_member.member_id)',
    ]);
    expect(byName(second, 'marts.dim_member: not_null(name, email)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ member_id: 7, name: null }] });
    expect(byName(second, 'marts.dim_member: unique(email)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ email: 'fan8@example.com', n_records: '2' }] });
    expect(byName(second, 'marts.dim_member: accepted_values(tier)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ tier: 'bronze', n_records: '1' }] });
    expect(byName(second, 'marts.dim_member: relationships(club_id -> intermediate.int_clubs.club_id)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ member_id: 1001, club_id: 3 }] });
    // the same verdicts as a test of every row
    expect(verdicts(second)).toEqual(verdicts(await check(true)));
  });

  it("tests a unique key of a model's own key by its changed keys, and finds a key a write repeated", async () => {
    await build();
    await check();
    // a keyed write that repeated member 5, recorded as a build records the keys it writes
    await withConnection(ws.warehouse, async (connection) => {
      await inTransaction(connection, async () => {
        const keys = await ChangedKeys.start(connection, 'marts.dim_member', 'marts.dim_member', ['member_id']);
        keys.keep('select member_id from marts.dim_member where member_id = 5', 1);
        await connection.run('insert into marts.dim_member select * from marts.dim_member where member_id = 5');
        await keys.finish();
      });
    });
    const results = await check();
    expect(byName(results, 'marts.dim_member: unique(member_id)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ member_id: 5, n_records: '2' }], changedRowsOnly: true });
    expect(verdicts(results)).toEqual(verdicts(await check(true)));
  });

  it('finds the children left without a parent when a parent key vanished, reading the parent\'s changed keys', async () => {
    await build();
    await check();

    await load(`delete from raw.clubs where id = 2; delete from raw.fans where id = 1000`);
    await build();
    const results = await check();

    const orphans = byName(results, 'marts.dim_member: relationships(club_id -> intermediate.int_clubs.club_id)');
    expect(orphans).toMatchObject({ status: 'fail', failures: 500, changedRowsOnly: true });
    // a member gone leaves its visit without a parent (an incremental model keeps its rows)
    expect(byName(results, 'marts.member_visits: relationships(member_id -> marts.dim_member.member_id)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ visit_id: 1000 }], changedRowsOnly: true });
    expect(verdicts(results)).toEqual(verdicts(await check(true)));
  });

  it('keeps the keys an incremental_delete removed, and finds the children that pointed at them', async () => {
    await ws.write({
      'marts/active_visits.sql': `-- materialized: incremental
-- unique_key: visit_id
-- incremental_delete: member_id not in (select member_id from marts.dim_member)
select id as visit_id, member_id from raw.visits
where member_id in (select member_id from marts.dim_member)
    and id > coalesce((select max(visit_id) from marts.active_visits), 0)
`,
      'marts/visit_badges.sql': `-- materialized: table
-- unique_key: badge_id
-- test: relationships(visit_id -> marts.active_visits.visit_id)
select id as badge_id, id as visit_id from raw.visits where id % 100 = 0
`,
    });
    await build();
    expect(checksFailed(await check())).toBe(false);

    await load(`delete from raw.fans where id in (300, 1000)`);
    await build();
    expect(await ws.query(`select key from meta.changed_keys where relation = 'marts.active_visits' order by key`)).toEqual([
      { key: '{"visit_id":1000}' },
      { key: '{"visit_id":300}' },
    ]);
    const results = await check();
    expect(byName(results, 'marts.visit_badges: relationships(visit_id -> marts.active_visits.visit_id)')).toMatchObject({
      status: 'fail',
      failures: 2,
      changedRowsOnly: true,
    });
    // the same verdicts as a test of every row (the two failing rows in either order)
    const counts = (all: TestResult[]) => all.map((r) => [r.name, r.status, r.failures]);
    expect(counts(results)).toEqual(counts(await check(true)));
  });

  it('tests again, after a failed check, every row changed since the test last passed, until it passes', async () => {
    await build();
    await check();
    await load(`update raw.fans set name = null where id = 7`);
    await build();
    expect(byName(await check(), 'marts.dim_member: not_null(name, email)')).toMatchObject({ status: 'fail', failures: 1 });

    // another row changes: the row that failed is still among those tested
    await load(`update raw.fans set name = 'renamed' where id = 8`);
    await build();
    expect(byName(await check(), 'marts.dim_member: not_null(name, email)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ member_id: 7 }], changedRowsOnly: true });

    await load(`update raw.fans set name = 'fixed' where id = 7`);
    await build();
    const fixed = await check();
    expect(checksFailed(fixed)).toBe(false);
    // every test of the model passed since: its keys are no longer kept
    expect(await ws.query(`select relation, count(*) as n from meta.changed_keys group by relation`)).toEqual([]);
  });

  it('tests the rows of a merge whose build was killed before it was recorded', async () => {
    await build();
    await check();
    await load(`update raw.fans set email = null where id = 5`);
    // killed after dim_member's merge committed, before the build recorded it: its build state is as before
    await ws.exec('create table main.build_state_before as select * from meta.build_state');
    await build();
    await ws.exec('delete from meta.build_state; insert into meta.build_state select * from main.build_state_before; drop table main.build_state_before');
    // built again, the merge finds nothing to write: the model's content is what the last check saw
    await build();

    const results = await check();
    expect(byName(results, 'marts.dim_member: not_null(name, email)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ member_id: 5 }], changedRowsOnly: true });
  });

  it('tests whole tables after a build in full, a test that never passed and check --all; and trusts no hand edit without --all', async () => {
    await build();
    await check();
    await load(`update raw.fans set tier = 'silver' where id = 2`);
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, fullRefresh: true });
    expect(changedOnly(await check())).toEqual([]);

    await load(`update raw.fans set tier = 'gold' where id = 2`);
    await build();
    expect(changedOnly(await check())).toContain('marts.dim_member: accepted_values(tier)');

    // a row changed by hand, not by a build: only a test of every row sees it
    await load(`update raw.fans set name = 'x' where id = 4`);
    await build();
    await ws.exec(`update marts.dim_member set tier = 'tin' where member_id = 3`);
    expect(byName(await check(), 'marts.dim_member: accepted_values(tier)')).toMatchObject({ status: 'pass', changedRowsOnly: true });
    expect(byName(await check(true), 'marts.dim_member: accepted_values(tier)')).toMatchObject({ status: 'fail', failures: 1 });
  });

  it('keeps no keys for a build that changed most of a table: the next check reads it whole', async () => {
    await build();
    await check();
    await load(`insert into raw.fans select range, 'fan ' || range, 'fan' || range || '@example.com', 'gold', 1, timestamptz '2024-05-01 00:00:00+00' from range(1001, 2201)`);
    await build();
    expect(await ws.query(`select count(*) as n from meta.changed_keys where relation = 'marts.dim_member'`)).toEqual([{ n: '0' }]);
    expect(await ws.query(`select generation = whole_since as in_full from meta.model_changes where relation = 'marts.dim_member'`)).toEqual([{ in_full: true }]);
    expect(changedOnly(await check()).filter((name) => name.startsWith('marts.dim_member'))).toEqual([]);
  });

  it('tests the whole table when a build writes a key twice, which a merge cannot write', async () => {
    await build();
    await check();
    await load(`insert into raw.fans values (12, 'twin', 'twin@example.com', 'gold', 1, timestamptz '2024-05-01 00:00:00+00')`);
    await build();
    const results = await check();
    expect(byName(results, 'marts.dim_member: unique(member_id)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ member_id: 12, n_records: '2' }] });
    expect(byName(results, 'marts.dim_member: unique(member_id)').changedRowsOnly).toBeUndefined();
  });
});

describe('check of the rows of a view made of one row per row of a model (rows_of)', () => {
  // a view of dim_member's rows, keyed by a card number the view makes of the member's key
  const CARDS = `-- materialized: view
-- rows_of: marts.dim_member cast(substr(card_id, 6) as integer)
-- test: unique(card_id)
-- test: unique(card_email)
-- test: not_null(card_name)
-- test: accepted_values(tier: gold, silver)
-- test: relationships(club_id -> intermediate.int_clubs.club_id)
select 'card-' || member_id as card_id, name as card_name, email as card_email, tier, club_id from marts.dim_member
`;
  const VIEW_TESTS = [
    'marts.member_cards: unique(card_id)',
    'marts.member_cards: unique(card_email)',
    'marts.member_cards: not_null(card_name)',
    'marts.member_cards: accepted_values(tier)',
    'marts.member_cards: relationships(club_id -> intermediate.int_clubs.club_id)',
  ];

  it("tests the view's rows of the model's changed keys, and finds a null, a repeated value, an unknown value and an orphan among them", async () => {
    await ws.write({ 'marts/member_cards.sql': CARDS });
    await build();
    expect(checksFailed(await check())).toBe(false);

    await load(`
        update raw.fans set name = null where id = 7;
        update raw.fans set email = 'fan8@example.com' where id = 9;
        update raw.fans set tier = 'bronze' where id = 10;
        insert into raw.fans values (1001, 'new fan', 'new@example.com', 'gold', 3, timestamptz '2024-05-01 00:00:00+00');
    `);
    await build();
    const results = await check();
    expect(changedOnly(results).filter((name) => name.startsWith('marts.member_cards'))).toEqual(VIEW_TESTS);
    expect(byName(results, 'marts.member_cards: not_null(card_name)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ card_id: 'card-7', card_name: null }] });
    expect(byName(results, 'marts.member_cards: unique(card_email)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ card_email: 'fan8@example.com', n_records: '2' }] });
    expect(byName(results, 'marts.member_cards: accepted_values(tier)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ tier: 'bronze' }] });
    expect(byName(results, 'marts.member_cards: relationships(club_id -> intermediate.int_clubs.club_id)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ card_id: 'card-1001', club_id: 3 }] });
    expect(verdicts(results)).toEqual(verdicts(await check(true)));

    // a club gone: the members pointing at it are found through the parent's changed keys
    await load(`update raw.fans set name = 'seven', email = 'fan9@example.com', tier = 'gold', club_id = 1 where id in (7, 9, 10, 1001); delete from raw.clubs where id = 2`);
    await build();
    const gone = await check();
    expect(byName(gone, 'marts.member_cards: relationships(club_id -> intermediate.int_clubs.club_id)')).toMatchObject({ status: 'fail', failures: 498, changedRowsOnly: true });
    expect(verdicts(gone)).toEqual(verdicts(await check(true)));
  });

  it('reads the whole view when its SQL changed, when it reads more than its relation, and when the model was built in full', async () => {
    await ws.write({ 'marts/member_cards.sql': CARDS });
    await build();
    await check();
    let touches = 0;
    // a member renamed, a name each time
    const touched = async () => {
      await load(`update raw.fans set name = 'renamed ${++touches}' where id = 3`);
      await build();
      return changedOnly(await check()).filter((name) => name.startsWith('marts.member_cards'));
    };
    expect(await touched()).toEqual(VIEW_TESTS);

    await ws.write({ 'marts/member_cards.sql': CARDS.replace("'card-' || member_id", "'card-' || member_id || ''") });
    expect(await touched()).toEqual([]);
    expect(await touched()).toEqual(VIEW_TESTS);

    // its rows now rest on the clubs too: a club renamed changes rows no member key says
    await ws.write({ 'marts/member_cards.sql': CARDS.replace('from marts.dim_member', 'from marts.dim_member inner join intermediate.int_clubs using (club_id)').replace('tier, club_id', 'tier, club_id, club_name') });
    await touched();
    expect(await touched()).toEqual([]);

    await ws.write({ 'marts/member_cards.sql': CARDS });
    await touched();
    await load(`update raw.fans set name = 'renamed again' where id = 4`);
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, fullRefresh: true });
    expect(changedOnly(await check()).filter((name) => name.startsWith('marts.member_cards'))).toEqual([]);
  });

  it('refuses rows_of on a model that is not a view', async () => {
    await ws.write({ 'marts/member_cards.sql': CARDS.replace('materialized: view', 'materialized: table') });
    await expect(build()).rejects.toThrow(/rows_of applies to a view/);
  });
});

describe('check of the rows a load changed', () => {
  const TICKETS = { id: 'BIGINT', id_user: 'BIGINT', status: 'VARCHAR', last_update: 'VARCHAR' };
  const USERS = { id: 'BIGINT', email: 'VARCHAR', last_update: 'VARCHAR' };
  const run = (resource: string, columns: Record<string, string>, extractedAt: string, records: Record<string, unknown>[]) =>
    writeRun(ws.dataDir, { resource, extractedAt, columns, primaryKey: ['id'], cursorField: 'last_update', pages: [records] });

  /** A project of raw tests only (`sources`), three users and their 200 tickets loaded, and a check that passes. */
  async function passOnRawOnly(sources: Record<string, { tests: string[] }>): Promise<void> {
    await ws.write({ 'sources.json': JSON.stringify(sources) });
    await removeMemberModels();
    const at = '2024-05-01T09:00:00.000Z';
    await run('users', USERS, '2024-05-01T10:00:00.000Z', [1, 2, 3].map((id) => ({ id, email: `u${id}@example.com`, last_update: at })));
    await run('tickets', TICKETS, '2024-05-01T10:00:00.000Z', Array.from({ length: 200 }, (_, i) => ({ id: i + 1, id_user: 1 + (i % 3), status: 'paid', last_update: at })));
    await loadWarehouse({ dataDir: ws.dataDir });
    expect(checksFailed(await check())).toBe(false);
  }

  it('tests the raw rows the loads since a pass wrote, by their run, and finds an orphan and a null among them', async () => {
    await passOnRawOnly({
      'raw.ticketing_tickets': { tests: ['unique(id)', 'not_null(status)', 'accepted_values(status: paid, open)', 'relationships(id_user -> raw.ticketing_users.id)'] },
      'raw.ticketing_users': { tests: ['unique(id)'] },
    });

    const later = '2024-05-02T09:00:00.000Z';
    await run('tickets', TICKETS, '2024-05-02T10:00:00.000Z', [
      { id: 5, id_user: 9, status: 'paid', last_update: later },
      { id: 6, id_user: 1, status: null, last_update: later },
      { id: 201, id_user: 2, status: 'lost', last_update: later },
    ]);
    await loadWarehouse({ dataDir: ws.dataDir });
    const results = await check();

    expect(changedOnly(results)).toEqual([
      'raw.ticketing_tickets: unique(id)',
      'raw.ticketing_tickets: not_null(status)',
      'raw.ticketing_tickets: accepted_values(status)',
      'raw.ticketing_tickets: relationships(id_user -> raw.ticketing_users.id)',
    ]);
    expect(byName(results, 'raw.ticketing_tickets: relationships(id_user -> raw.ticketing_users.id)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ id: '5', id_user: '9' }] });
    expect(byName(results, 'raw.ticketing_tickets: not_null(status)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ id: '6' }] });
    expect(byName(results, 'raw.ticketing_tickets: accepted_values(status)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ status: 'lost' }] });
    expect(verdicts(results)).toEqual(verdicts(await check(true)));

    // a user gone from raw (a person forgotten, whose delete moves the table's generation as
    // `forget` does): the parent's loads do not say which, the whole test does
    await withConnection(ws.warehouse, async (connection) => {
      await connection.run(`delete from raw.ticketing_users where id = 3`);
      await recordRawErasure(connection, 'raw.ticketing_users');
    });
    const forgotten = byName(await check(), 'raw.ticketing_tickets: relationships(id_user -> raw.ticketing_users.id)');
    // ticket 5's orphan, and the tickets of user 3 (66 of 200, less ticket 6, now user 1's)
    expect(forgotten).toMatchObject({ status: 'fail', failures: 1 + 65 });
    expect(forgotten.changedRowsOnly).toBeUndefined();
  });
  it("tests a staging view's rows of the raw rows the loads since wrote (rows_of), and reads it whole where it reads the vanished flag", async () => {
    await passOnRawOnly({ 'raw.ticketing_users': { tests: ['unique(id)'] } });
    const view = (extra = '') => `-- rows_of: raw.ticketing_tickets ticket_id
-- test: unique(ticket_id)
-- test: not_null(status)
-- test: relationships(user_id -> raw.ticketing_users.id)
select id as ticket_id, id_user as user_id, status${extra} from raw.ticketing_tickets
`;
    await ws.write({ 'staging/stg_tickets.sql': view() });
    await build();
    expect(checksFailed(await check())).toBe(false);

    const later = '2024-05-02T09:00:00.000Z';
    await run('tickets', TICKETS, '2024-05-02T10:00:00.000Z', [
      { id: 5, id_user: 9, status: 'paid', last_update: later },
      { id: 6, id_user: 1, status: null, last_update: later },
    ]);
    await loadWarehouse({ dataDir: ws.dataDir });
    await build();
    const results = await check();
    expect(changedOnly(results)).toEqual(['staging.stg_tickets: unique(ticket_id)', 'staging.stg_tickets: not_null(status)', 'staging.stg_tickets: relationships(user_id -> raw.ticketing_users.id)']);
    expect(byName(results, 'staging.stg_tickets: relationships(user_id -> raw.ticketing_users.id)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ ticket_id: '5', user_id: '9' }] });
    expect(byName(results, 'staging.stg_tickets: not_null(status)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ ticket_id: '6' }] });
    expect(verdicts(results)).toEqual(verdicts(await check(true)));

    // a view that shows a snapshot's vanished flag changes where no run says: read whole
    const MEMBERS = { id: 'BIGINT', name: 'VARCHAR' };
    const snapshot = (extractedAt: string, ids: number[]) =>
      writeRun(ws.dataDir, { resource: 'members', extractedAt, columns: MEMBERS, primaryKey: ['id'], snapshot: true, pages: [ids.map((id) => ({ id, name: `m${id}` }))] });
    await ws.write({
      'staging/stg_members.sql': `-- rows_of: raw.ticketing_members member_id
-- test: not_null(name)
select id as member_id, name, _vanished_at as vanished_at from raw.ticketing_members
`,
    });
    await snapshot('2024-05-03T10:00:00.000Z', [1, 2, 3]);
    await loadWarehouse({ dataDir: ws.dataDir });
    await build();
    await check();
    await snapshot('2024-05-04T10:00:00.000Z', [1, 2, 4]);
    await loadWarehouse({ dataDir: ws.dataDir });
    await build();
    const members = byName(await check(), 'staging.stg_members: not_null(name)');
    expect(members).toMatchObject({ status: 'pass' });
    expect(members.carriedFrom).toBeUndefined();
    expect(members.changedRowsOnly).toBeUndefined();
  });

  it('tests only the changed child rows when a raw parent was only loaded since: a load adds keys and removes none', async () => {
    await passOnRawOnly({ 'raw.ticketing_tickets': { tests: ['relationships(id_user -> raw.ticketing_users.id)'] } });

    const later = '2024-05-02T09:00:00.000Z';
    await run('users', USERS, '2024-05-02T10:00:00.000Z', [{ id: 4, email: 'u4@example.com', last_update: later }, { id: 2, email: 'two@example.com', last_update: later }]);
    await run('tickets', TICKETS, '2024-05-02T10:00:00.000Z', [
      { id: 201, id_user: 4, status: 'paid', last_update: later },
      { id: 202, id_user: 99, status: 'paid', last_update: later },
    ]);
    await loadWarehouse({ dataDir: ws.dataDir });
    const results = await check();
    expect(byName(results, 'raw.ticketing_tickets: relationships(id_user -> raw.ticketing_users.id)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ id: '202', id_user: '99' }], changedRowsOnly: true });
    expect(verdicts(results)).toEqual(verdicts(await check(true)));
  });
});

describe('custom tests of the keys that changed', () => {
  const TICKETS = { id: 'BIGINT', status: 'VARCHAR', last_update: 'VARCHAR' };
  const at = '2024-05-01T09:00:00.000Z';
  const run = (extractedAt: string, records: Record<string, unknown>[]) =>
    writeRun(ws.dataDir, { resource: 'tickets', extractedAt, columns: TICKETS, primaryKey: ['id'], cursorField: 'last_update', pages: [records] });
  const TEST = 'tests/each_ticket_one_kind';

  beforeEach(async () => {
    await removeMemberModels();
    await ws.write({
      'sources.json': JSON.stringify({}),
      // a void ticket has no kind: the model a careless edit broke
      'intermediate/int_kinds.sql': `-- materialized: table
-- unique_key: ticket_id
select id as ticket_id, status as kind from raw.ticketing_tickets where status is distinct from 'void'
`,
      // each ticket one kind, and no kind without its ticket (a row of a ticket erased from raw)
      'tests/each_ticket_one_kind.sql': `-- key: raw.ticketing_tickets id
-- key: intermediate.int_kinds ticket_id
with
tickets as not materialized (select * from raw.ticketing_tickets),
kinds as not materialized (select * from intermediate.int_kinds),
counted as (select tickets.id, count(kinds.ticket_id) as kinds from tickets left join kinds on kinds.ticket_id = tickets.id group by tickets.id)
select * from counted where kinds <> 1
union all
select kinds.ticket_id as id, -1 as kinds from kinds anti join tickets on tickets.id = kinds.ticket_id
`,
    });
    await run('2024-05-01T10:00:00.000Z', Array.from({ length: 200 }, (_, i) => ({ id: i + 1, status: 'paid', last_update: at })));
    await loadWarehouse({ dataDir: ws.dataDir });
    await build();
    const first = byName(await check(), TEST);
    expect(first).toMatchObject({ status: 'pass' });
    expect(first.changedRowsOnly).toBeUndefined();
  });

  it('reads the keys a load and a build changed, finds a ticket left without a kind among them until it passes, as a whole check does', async () => {
    const later = '2024-05-02T09:00:00.000Z';
    await run('2024-05-02T10:00:00.000Z', [
      { id: 7, status: 'void', last_update: later },
      { id: 201, status: 'open', last_update: later },
    ]);
    await loadWarehouse({ dataDir: ws.dataDir });
    await build();
    const results = await check();
    expect(byName(results, TEST)).toMatchObject({ status: 'fail', failures: 1, sample: [{ id: '7', kinds: '0' }], changedRowsOnly: true });
    expect(verdicts(results)).toEqual(verdicts(await check(true)));

    // the failing ticket unchanged since, another one changed: still found, its key kept since the last pass
    await run('2024-05-03T10:00:00.000Z', [{ id: 8, status: 'open', last_update: '2024-05-03T09:00:00.000Z' }]);
    await loadWarehouse({ dataDir: ws.dataDir });
    await build();
    const again = await check();
    expect(byName(again, TEST)).toMatchObject({ status: 'fail', failures: 1, sample: [{ id: '7', kinds: '0' }], changedRowsOnly: true });
    expect(verdicts(again)).toEqual(verdicts(await check(true)));
  });

  it('reads whole tables after an erasure, whose deleted keys no run holds, and finds the kind left without its ticket', async () => {
    // a ticket erased from raw (as `forget` deletes it) before any build took it out of int_kinds
    await withConnection(ws.warehouse, async (connection) => {
      await connection.run('delete from raw.ticketing_tickets where id = 9');
      await recordRawErasure(connection, 'raw.ticketing_tickets');
    });
    const results = await check();
    expect(byName(results, TEST)).toMatchObject({ status: 'fail', failures: 1, sample: [{ id: '9', kinds: '-1' }] });
    expect(byName(results, TEST).changedRowsOnly).toBeUndefined();
    expect(verdicts(results)).toEqual(verdicts(await check(true)));
  });

  it('refuses a key of a relation the test reads otherwise than as select * from it', async () => {
    await ws.write({ 'tests/each_ticket_one_kind.sql': "-- key: raw.ticketing_tickets id\nselect id from raw.ticketing_tickets where status = 'lost'\n" });
    await expect(check()).rejects.toThrow(/key: raw\.ticketing_tickets must be read only as "select \* from raw\.ticketing_tickets"/);
  });
});

describe('check of what was rebuilt: tests of views and custom tests', () => {
  const TICKETS = { id: 'BIGINT', id_user: 'BIGINT', status: 'VARCHAR', last_update: 'VARCHAR' };
  const USERS = { id: 'BIGINT', email: 'VARCHAR', last_update: 'VARCHAR' };
  const run = (resource: string, columns: Record<string, string>, extractedAt: string, records: Record<string, unknown>[]) =>
    writeRun(ws.dataDir, { resource, extractedAt, columns, primaryKey: ['id'], cursorField: 'last_update', pages: [records] });
  const at = '2024-05-01T09:00:00.000Z';
  const users = (ids: number[], email = (id: number): string | null => `u${id}@example.com`) => ids.map((id) => ({ id, email: email(id), last_update: at }));
  const tickets = (ids: number[], status = 'paid') => ids.map((id) => ({ id, id_user: 1 + (id % 3), status, last_update: at }));
  const carried = (results: TestResult[]) => results.filter((r) => r.carriedFrom).map((r) => r.name).sort();
  const ran = (results: TestResult[]) => results.filter((r) => !r.carriedFrom && r.status !== 'skipped').map((r) => r.name).sort();

  beforeEach(async () => {
    await removeMemberModels();
    await ws.write({
      'sources.json': JSON.stringify({}),
      'staging/stg_users.sql': `-- test: not_null(email)
select id as user_id, email from raw.ticketing_users
`,
      'staging/stg_tickets.sql': `-- test: accepted_values(status: paid, open)
select id as ticket_id, id_user as user_id, status from raw.ticketing_tickets
`,
      'marts/fct_tickets.sql': `-- materialized: table
-- unique_key: ticket_id
select ticket_id, user_id, status from staging.stg_tickets
`,
      // through a view, to the raw table beneath it
      'tests/users_have_an_address.sql': "select user_id from staging.stg_users where email not like '%@%'\n",
      'tests/tickets_have_a_user.sql': 'select ticket_id from marts.fct_tickets where user_id is null\n',
    });
    await run('users', USERS, '2024-05-01T10:00:00.000Z', users([1, 2, 3]));
    await run('tickets', TICKETS, '2024-05-01T10:00:00.000Z', tickets([1, 2, 3, 4, 5, 6]));
    await loadWarehouse({ dataDir: ws.dataDir });
    await build();
    expect(checksFailed(await check())).toBe(false);
  });

  it('carries every test when the loads since wrote nothing new, and a build changed nothing', async () => {
    // the same records read again: only their lineage moves
    await run('users', USERS, '2024-05-02T10:00:00.000Z', users([1, 2, 3]));
    await run('tickets', TICKETS, '2024-05-02T10:00:00.000Z', tickets([4, 5, 6]));
    await loadWarehouse({ dataDir: ws.dataDir });
    await build();
    const results = await check();
    expect(ran(results)).toEqual([]);
    expect(carried(results)).toEqual(results.map((r) => r.name).sort());
    // and check --all runs them all
    expect(carried(await check(true))).toEqual([]);
  });

  it("runs a staging view's test when a load broke it, and a custom test through that view; leaves the other table's tests carried", async () => {
    await run('users', USERS, '2024-05-02T10:00:00.000Z', users([4], () => null));
    await loadWarehouse({ dataDir: ws.dataDir });
    await build();
    const results = await check();
    expect(ran(results)).toEqual(['staging.stg_users: not_null(email)', 'tests/users_have_an_address']);
    expect(byName(results, 'staging.stg_users: not_null(email)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ user_id: '4', email: null }] });
    expect(carried(results)).toEqual(['staging.stg_tickets: accepted_values(status)', 'tests/tickets_have_a_user']);

    await run('users', USERS, '2024-05-03T10:00:00.000Z', users([5], () => 'no address'));
    await loadWarehouse({ dataDir: ws.dataDir });
    await build();
    expect(byName(await check(), 'tests/users_have_an_address')).toMatchObject({ status: 'fail', failures: 1, sample: [{ user_id: '5' }] });
  });

  it('carries every test after a check on the build\'s own open warehouse, whose views and macros DuckDB writes back otherwise after a reopen', async () => {
    // a UNION chain and a materialized CTE: DuckDB's text of them differs between the session
    // that created them and a later open of the file
    await ws.write({
      'macros/ticket_statuses.sql': "create or replace macro macros.ticket_statuses() as table with known as materialized (select 'paid' as status) select status from known union all select 'open' union all select 'lost';\n",
      'staging/stg_statuses.sql': "-- test: not_null(status)\nselect status from staging.stg_tickets union all select 'paid' union all select 'open'\n",
      'tests/ticket_statuses_known.sql': 'select ticket_id from marts.fct_tickets where status not in (select status from macros.ticket_statuses())\n',
    });
    await build();
    await check();
    // `run`: the build and the check on one open warehouse
    await run('tickets', TICKETS, '2024-05-02T10:00:00.000Z', tickets([7]));
    await loadWarehouse({ dataDir: ws.dataDir });
    const instance = await openDatabase(join(ws.dataDir, 'warehouse.duckdb'));
    try {
      await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, instance });
      const shared = await runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, instance });
      expect(ran(shared)).toContain('tests/ticket_statuses_known');
    } finally {
      instance.closeSync();
    }
    // the next check, on a fresh open, finds the states that check recorded
    const results = await check();
    expect(ran(results)).toEqual([]);
  });

  it('takes each view and macro text as an earlier check turned it, and turns a text changed since again, running its tests', async () => {
    await ws.write({
      'macros/ticket_statuses.sql': "create or replace macro macros.ticket_statuses() as table select 'paid' as status union all select 'open' union all select 'lost';\n",
      'tests/ticket_statuses_known.sql': 'select ticket_id from marts.fct_tickets where status not in (select status from macros.ticket_statuses())\n',
    });
    await build();
    expect(byName(await check(), 'tests/ticket_statuses_known')).toMatchObject({ status: 'pass' });
    const texts = async () => (await ws.query(`select count(*) as kept from meta.session_free_sql`))[0]!.kept;
    const views = async () => (await ws.query(`select count(*) as n from duckdb_views() where not internal and database_name = current_database()`))[0]!.n;
    const macros = async () => (await ws.query(`select count(*) as n from duckdb_functions() where database_name = current_database() and schema_name = 'macros'`))[0]!.n;
    expect(Number(await texts())).toBe(Number(await views()) + Number(await macros()));
    expect(ran(await check())).toEqual([]);
    // the next check reads what it keeps: kept otherwise, every test through a view or a macro runs again
    await ws.exec(`update meta.session_free_sql set session_free = session_free || ' '`);
    expect(ran(await check())).toEqual(['staging.stg_tickets: accepted_values(status)', 'staging.stg_users: not_null(email)', 'tests/ticket_statuses_known', 'tests/users_have_an_address']);
    expect(ran(await check())).toEqual([]);
    // a macro changed: its text is turned anew, and the test calling it runs and fails; the old text is forgotten
    await ws.write({ 'macros/ticket_statuses.sql': "create or replace macro macros.ticket_statuses() as table select 'open' as status;\n" });
    await build();
    const results = await check();
    expect(ran(results)).toContain('tests/ticket_statuses_known');
    expect(byName(results, 'tests/ticket_statuses_known').status).toBe('fail');
    expect(Number(await texts())).toBe(Number(await views()) + Number(await macros()));
  });

  it("runs a custom test through a macro that reads fanlake's own records in meta at every check, which each build moves", async () => {
    await ws.write({
      'macros/builds.sql': 'create or replace macro macros.builds() as table select count(*) as builds from meta.build_state;\n',
      'tests/tickets_after_a_build.sql': 'select ticket_id from marts.fct_tickets where ticket_id is null and (select builds from macros.builds()) > 0\n',
    });
    await build();
    await check();
    expect(ran(await check())).toEqual(['tests/tickets_after_a_build']);
  });

  it('runs a custom test whose table a build changed, and the tests of the view beneath it', async () => {
    await run('tickets', TICKETS, '2024-05-02T10:00:00.000Z', [{ id: 7, id_user: null, status: 'lost', last_update: at }]);
    await loadWarehouse({ dataDir: ws.dataDir });
    await build();
    const results = await check();
    expect(ran(results)).toEqual(['staging.stg_tickets: accepted_values(status)', 'tests/tickets_have_a_user']);
    expect(byName(results, 'tests/tickets_have_a_user')).toMatchObject({ status: 'fail', failures: 1, sample: [{ ticket_id: '7' }] });
    expect(byName(results, 'staging.stg_tickets: accepted_values(status)')).toMatchObject({ status: 'fail', failures: 1 });
    expect(carried(results)).toEqual(['staging.stg_users: not_null(email)', 'tests/users_have_an_address']);
  });

  it("runs a view's tests again when its SQL changed, even with the same inputs", async () => {
    await ws.write({ 'staging/stg_users.sql': "-- test: not_null(email)\nselect id as user_id, case when id = 2 then null else email end as email from raw.ticketing_users\n" });
    await build();
    const results = await check();
    expect(byName(results, 'staging.stg_users: not_null(email)')).toMatchObject({ status: 'fail', failures: 1 });
    expect(byName(results, 'tests/users_have_an_address').carriedFrom).toBeUndefined();
  });

  it('carries a custom test reading a seed a build loaded again unchanged, and runs it when the seed changed', async () => {
    await ws.write({ 'seeds/ticket_statuses.csv': 'status\npaid\nopen\n', 'tests/ticket_statuses_known.sql': 'select ticket_id from marts.fct_tickets where status not in (select status from seeds.ticket_statuses)\n' });
    await build();
    expect(byName(await check(), 'tests/ticket_statuses_known')).toMatchObject({ status: 'pass' });
    await build();
    expect(byName(await check(), 'tests/ticket_statuses_known').carriedFrom).toBeDefined();
    await ws.write({ 'seeds/ticket_statuses.csv': 'status\nopen\n' });
    await build();
    expect(byName(await check(), 'tests/ticket_statuses_known')).toMatchObject({ status: 'fail', failures: 6 });
  });

  it('runs a test of a snapshot table when a record vanished, and again when it came back with the same values', async () => {
    const MEMBERS = { id: 'BIGINT', name: 'VARCHAR' };
    const snapshot = (extractedAt: string, ids: number[]) =>
      writeRun(ws.dataDir, { resource: 'members', extractedAt, columns: MEMBERS, primaryKey: ['id'], snapshot: true, pages: [ids.map((id) => ({ id, name: `m${id}` }))] });
    await ws.write({ 'tests/no_member_vanished.sql': 'select id from raw.ticketing_members where _vanished_at is not null\n' });
    await snapshot('2024-05-01T10:00:00.000Z', [1, 2, 3]);
    await loadWarehouse({ dataDir: ws.dataDir });
    expect(byName(await check(), 'tests/no_member_vanished')).toMatchObject({ status: 'pass' });
    await snapshot('2024-05-02T10:00:00.000Z', [1, 2]);
    await loadWarehouse({ dataDir: ws.dataDir });
    expect(byName(await check(), 'tests/no_member_vanished')).toMatchObject({ status: 'fail', failures: 1 });
    // back, unchanged: the load inserts and replaces nothing, but the flag is cleared
    await snapshot('2024-05-03T10:00:00.000Z', [1, 2, 3]);
    await loadWarehouse({ dataDir: ws.dataDir });
    const back = byName(await check(), 'tests/no_member_vanished');
    expect(back).toMatchObject({ status: 'pass' });
    expect(back.carriedFrom).toBeUndefined();
  });

  it('sees a raw row changed by hand only with check --all', async () => {
    await ws.exec(`update raw.ticketing_users set email = null where id = 2`);
    expect(byName(await check(), 'staging.stg_users: not_null(email)')).toMatchObject({ status: 'pass' });
    expect(byName(await check(true), 'staging.stg_users: not_null(email)')).toMatchObject({ status: 'fail', failures: 1 });
  });
});
