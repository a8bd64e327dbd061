import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildModels, type ModelResult } from '../../src/models/build-models.js';
import { tempDataDir } from '../helpers/cli.js';
import { sharedWarehouse } from '../helpers/shared-warehouse.js';
import { changeWarehouse, copyWarehouse, queryWarehouse, tableSnapshot } from '../helpers/warehouse.js';

type Run = (sql: string) => Promise<Record<string, unknown>[]>;

/**
 * The consent events, the fans' consents, their purchases and dim_fan are incremental: a build
 * computes the fans int_fan_changes stamped since its last one (a record that moved fan, a
 * permission or consent loaded since, by the load ledger), the fans a changed ticket counts or
 * counted for, the fans whose merchandise, member category or leaderboard place changed, and
 * deletes the fans gone; a changed consent mapping builds them in full. After such changes the incremental build must leave exactly what
 * `build --full-refresh` makes of the same raw data and club files.
 */
const COMPARED = [
  'intermediate.int_identity_clusters',
  'intermediate.int_ticketing_user_fans',
  'intermediate.int_fan_contacts',
  'intermediate.int_fan_changes',
  'intermediate.int_ticketing_consent_events',
  'intermediate.int_engagement_consent_events',
  'intermediate.int_fan_consents',
  'intermediate.int_fan_purchases',
  'marts.dim_fan',
  'marts.fan_engagement',
  'marts.consent_coverage',
  'marts.consent_changes_monthly',
  'marts.consent_ledger',
];

const TOUCHED_MODELS = ['int_ticketing_consent_events', 'int_engagement_consent_events', 'int_fan_consents'];
const FAN_MODELS = ['int_fan_purchases', 'dim_fan', 'fan_engagement'];

let shared: string;

beforeAll(async () => {
  shared = await sharedWarehouse({ simulator: { scale: 0.02, seed: 42 } });
}, 180_000);

/**
 * A run of a resource as load records it, loaded now (after every build so far): in the load
 * ledger, and the SQL that stamps the rows it wrote with its extraction time and id.
 */
async function loadedRun(run: Run, loaded: (relation: string) => Promise<void>, source: string, resource: string): Promise<string> {
  const [{ at }] = (await run(`select cast(max(extracted_at) + interval 1 hour as varchar) as at from meta.load_ledger`)) as [{ at: string }];
  const runId = `test-${resource}-${at.replace(/\D/g, '')}`;
  await run(`insert into meta.load_ledger values ('${source}', '${resource}', '${runId}', '${at}'::timestamptz, now(), 1, false, '[]')`);
  // a build follows the generation a load records for the table it wrote
  await loaded(`raw.${source}_${resource}`);
  return `_extracted_at = '${at}'::timestamptz, _run_id = '${runId}'`;
}

const built = (results: ModelResult[], model: string) => results.find((result) => result.model === model);

/** Builds incrementally, then a copy of the same warehouse with --full-refresh; both snapshots. */
async function buildBoth(dataDir: string, clubDir?: string): Promise<{ results: ModelResult[]; incremental: Map<string, string>; full: Map<string, string> }> {
  const rebuilt = copyWarehouse(dataDir);
  const results = await buildModels({ dataDir, ...(clubDir ? { clubDir } : {}) });
  const failed = results.filter((result) => result.status === 'failed');
  expect(failed.map((result) => `${result.model}: ${result.error?.message}`)).toEqual([]);
  const incremental = await tableSnapshot(dataDir, COMPARED);
  await buildModels({ dataDir: rebuilt, fullRefresh: true, ...(clubDir ? { clubDir } : {}) });
  return { results, incremental, full: await tableSnapshot(rebuilt, COMPARED) };
}

describe('incremental consent events and fan consents', () => {
  let dataDir: string;
  let fanCount: number;
  let eventCount: number;
  let changes: { merged: string[]; split: string; gone: string };
  let round: Awaited<ReturnType<typeof buildBoth>>;
  let remapped: Awaited<ReturnType<typeof buildBoth>>;
  let disabled: Awaited<ReturnType<typeof buildBoth>>;

  beforeAll(async () => {
    dataDir = copyWarehouse(shared);
    // The build after a change reads its last build's state: one build first, as a club's runs do.
    await buildModels({ dataDir });
    changes = await changeWarehouse(dataDir, async (run, loaded) => {
      [{ fans: fanCount, events: eventCount }] = (await run(`
        select (select count(*)::int from intermediate.int_fan_changes) as fans,
               (select count(*)::int from intermediate.int_consent_events) as events`)) as [{ fans: number; events: number }];
      // Users of one record each with permissions, to merge.
      const lone = (await run(`
        select clusters.record_id from intermediate.int_identity_clusters as clusters
        where clusters.system = 'ticketing_user'
            and clusters.fan_id in (select fan_id from intermediate.int_identity_clusters group by fan_id having count(*) = 1)
            and clusters.record_id in (select cast(user_id as varchar) from intermediate.int_ticketing_consent_events as events inner join staging.stg_ticketing__user_permissions as p on cast(p.user_id as varchar) || ':' || cast(p.consent_type_id as varchar) = events.record_id)
        order by clusters.record_id limit 2`)).map((row) => String(row.record_id));
      expect(lone, 'two users who are fans of their own with consents').toHaveLength(2);
      // A user linked to other records whose fan has consents: it is split off.
      const [linked] = await run(`
        select clusters.record_id from intermediate.int_identity_clusters as clusters
        where clusters.system = 'ticketing_user'
            and clusters.fan_id in (select fan_id from intermediate.int_identity_clusters group by fan_id having count(*) > 2)
            and clusters.fan_id in (select fan_id from intermediate.int_fan_consents)
        order by clusters.record_id limit 1`);
      expect(linked, 'a user linked to other records').toBeDefined();
      // A customer profile whose fan is named after it and has consents: it vanishes, and its fan is gone.
      const [vanishing] = await run(`
        select clusters.record_id from intermediate.int_identity_clusters as clusters
        where clusters.system = 'engagement_customer_profile'
            and clusters.fan_id = 'fan_' || left(md5(clusters.record_key), 16)
            and clusters.fan_id in (select fan_id from intermediate.int_engagement_consent_events)
        order by clusters.record_id limit 1`);
      expect(vanishing, 'a profile with consents').toBeDefined();
      const gone = String(vanishing!.record_id);
      const [merged, into] = lone as [string, string];
      const split = String(linked!.record_id);

      // a merge: one user takes another's name, e-mail, phone and birthday
      const users = await loadedRun(run, loaded, 'ticketing', 'users');
      await run(`
        update raw.ticketing_users as target set ${users}, name_first = source.name_first, name_last = source.name_last, completename = source.completename,
            email = source.email, phone = source.phone, birthday = source.birthday
        from (select * from raw.ticketing_users where id = '${into}') as source
        where target.id = '${merged}'`);
      // a split: a linked user becomes somebody nobody else is
      await run(`
        update raw.ticketing_users set ${users}, name_first = 'Zebediah', name_last = 'Quarrington-Vale', completename = 'Zebediah Quarrington-Vale',
            email = 'zebediah.qv@example.invalid', phone = null, birthday = '1931-02-03'
        where id = '${split}'`);
      // a fan gone: a complete snapshot no longer had its profile
      const [{ at: snapshotAt }] = (await run(`select cast(max(extracted_at) + interval 1 hour as varchar) as at from meta.load_ledger`)) as [{ at: string }];
      const snapshot = await loadedRun(run, loaded, 'engagement', 'customer_profiles');
      await run(`update raw.engagement_customer_profiles set ${snapshot} where id <> '${gone}'`);
      await run(`update raw.engagement_customer_profiles set _vanished_at = '${snapshotAt}'::timestamptz where id = '${gone}'`);
      // a permission refused, and an engagement consent revoked
      await run(`
        update raw.ticketing_user_permissions set ${await loadedRun(run, loaded, 'ticketing', 'user_permissions')}, decision = false
        where (id_user, id_consent_basic) = (select (id_user, id_consent_basic) from raw.ticketing_user_permissions where decision order by id_user, id_consent_basic limit 1)`);
      await run(`
        update raw.engagement_consents set ${await loadedRun(run, loaded, 'engagement', 'consents')}, isRevoked = true, revokedDateTime = '2026-01-02T03:04:05Z'
        where id = (select min(id) from raw.engagement_consents where not coalesce(isRevoked, false) and _vanished_at is null)`);
      // A ticket changes hands (a fan-level model that reads tickets must follow both holders),
      // another changes buyer, and a third is cancelled: each counted for a fan with no other
      // ticket of its kind, whom only the ticket names (in the row that counted it).
      const [{ held, bought, cancelled }] = (await run(`
        with lone as (
            select tickets.ticket_id, tickets.buyer_user_id, tickets.holder_user_id, kinds.is_counted_attendance, tickets.is_sold and kinds.ticket_kind <> 'season_ticket_seat' as is_bought
            from marts.fct_tickets as tickets
            inner join intermediate.int_ticket_kinds as kinds on kinds.ticket_id = tickets.ticket_id
        )
        select
            (select cast(min(ticket_id) as varchar) from lone where is_counted_attendance and holder_user_id <> buyer_user_id
                and holder_user_id in (select user_id from intermediate.int_ticketing_user_fans where fan_id in (select fan_id from marts.dim_fan where matches_attended = 1))) as held,
            (select cast(max(ticket_id) as varchar) from lone where is_bought and not is_counted_attendance
                and buyer_user_id in (select user_id from intermediate.int_ticketing_user_fans where fan_id in (select fan_id from marts.dim_fan where tickets_bought = 1))) as bought,
            (select cast(max(ticket_id) as varchar) from lone where is_bought and is_counted_attendance and buyer_user_id = holder_user_id
                and buyer_user_id in (select user_id from intermediate.int_ticketing_user_fans where fan_id in (select fan_id from marts.dim_fan where tickets_bought = 1 and matches_attended = 1))) as cancelled`)) as [
        { held: string; bought: string; cancelled: string },
      ];
      expect([held, bought, cancelled].every((ticket) => ticket !== null), 'tickets that alone count for their fans').toBe(true);
      const tickets = await loadedRun(run, loaded, 'ticketing', 'tickets');
      await run(`update raw.ticketing_tickets set ${tickets}, user_held_id = (select max(user_held_id) from raw.ticketing_tickets) where id = '${held}'`);
      await run(`update raw.ticketing_tickets set ${tickets}, user_aquired_id = (select min(user_aquired_id) from raw.ticketing_tickets) where id = '${bought}'`);
      await run(`update raw.ticketing_tickets set ${tickets}, order_status = 2, order_status_text = 'Cancelled' where id = '${cancelled}'`);
      // a merchandise line moves to another account, and a member changes category
      await run(`
        update raw.ticketing_merchandise set ${await loadedRun(run, loaded, 'ticketing', 'merchandise')}, user_id = (select max(user_id) from raw.ticketing_merchandise)
        where id = (select min(id) from raw.ticketing_merchandise where user_id is not null and order_status = 1)`);
      // the leaders score again (fan_engagement compares the board with its rows)
      await run(`update raw.engagement_top_positions set ${await loadedRun(run, loaded, 'engagement', 'top_positions')}, score = score + 1 where position = 1`);
      await run(`
        update raw.ticketing_members set ${await loadedRun(run, loaded, 'ticketing', 'members')}, category_id = category_id + 1000, category = 'Moved up'
        where id = (select min(id) from raw.ticketing_members)`);
      return { merged: [merged, into], split, gone };
    });
    round = await buildBoth(dataDir);

    // The club maps a consent it did not: every fan's consents are read again.
    const clubDir = join(tempDataDir(), 'club');
    mkdirSync(clubDir, { recursive: true });
    const meanings = readFileSync(join(import.meta.dirname, '../../defaults/club/consent_meanings.csv'), 'utf8');
    writeFileSync(join(clubDir, 'consent_meanings.csv'), meanings.replace('ticketing,3,Push notifications,club_marketing,push', 'ticketing,3,Push notifications,partner_marketing,push'));
    remapped = await buildBoth(dataDir, clubDir);

    // The engagement platform disables a consent text: every consent given under it grants nothing now.
    await changeWarehouse(dataDir, async (run, loaded) => {
      await run(`
        update raw.engagement_consent_texts set ${await loadedRun(run, loaded, 'engagement', 'consent_texts')}, isEnabled = false
        where id = (select min(id) from raw.engagement_consent_texts where isEnabled and id in (select links ->> 'consentText' from raw.engagement_consents))`);
    });
    disabled = await buildBoth(dataDir, clubDir);
  }, 600_000);

  it('computes only the fans that changed', () => {
    for (const model of TOUCHED_MODELS) {
      const result = built(round.results, model);
      expect(result?.status, model).toBe('ok');
      expect(result?.changed, model).toBe(true);
    }
    expect(built(round.results, 'int_fan_changes')?.rows).toBeLessThan(fanCount / 10);
    expect(built(round.results, 'int_ticketing_consent_events')?.rows).toBeLessThan(eventCount / 10);
    expect(built(round.results, 'int_fan_consents')?.rows).toBeLessThan(eventCount / 10);
    for (const model of FAN_MODELS) {
      expect(built(round.results, model)?.changed, model).toBe(true);
      expect(built(round.results, model)?.rows, model).toBeLessThan(fanCount / 10);
    }
  });

  it('moves the merged user to the other fan, splits the linked one off and drops the fan gone', async () => {
    const fans = new Map(
      (await queryWarehouse(dataDir, `select record_id, fan_id from intermediate.int_identity_clusters where system in ('ticketing_user', 'engagement_customer_profile') and record_id in ('${[...changes.merged, changes.split, changes.gone].join("', '")}')`)).map((row) => [
        String(row.record_id),
        String(row.fan_id),
      ]),
    );
    expect(fans.get(changes.merged[0]!)).toBe(fans.get(changes.merged[1]!));
    expect(fans.has(changes.gone)).toBe(false);
    const [split] = await queryWarehouse(dataDir, `select count(*)::int as records from intermediate.int_identity_clusters where fan_id = '${fans.get(changes.split)}'`);
    expect(split?.records).toBe(1);
  });

  it.each(COMPARED)('leaves %s as a full rebuild does', (relation) => {
    expect(round.incremental.get(relation)).toBe(round.full.get(relation));
  });

  it('builds the consent models in full when the club maps a consent anew', () => {
    for (const model of TOUCHED_MODELS) expect(built(remapped.results, model)?.changed, model).toBe(true);
    expect(remapped.incremental.get('intermediate.int_fan_consents')).not.toBe(round.incremental.get('intermediate.int_fan_consents'));
  });

  it.each(COMPARED)('leaves %s as a full rebuild does after a new mapping', (relation) => {
    expect(remapped.incremental.get(relation)).toBe(remapped.full.get(relation));
  });

  it('builds the consent models in full when a consent text is disabled', () => {
    expect(built(disabled.results, 'int_engagement_consent_texts')?.status).toBe('ok');
    for (const model of ['int_engagement_consent_events', 'int_fan_consents', 'dim_fan']) expect(built(disabled.results, model)?.changed, model).toBe(true);
    expect(disabled.incremental.get('intermediate.int_fan_consents')).not.toBe(remapped.incremental.get('intermediate.int_fan_consents'));
  });

  it.each(COMPARED)('leaves %s as a full rebuild does after a disabled consent text', (relation) => {
    expect(disabled.incremental.get(relation)).toBe(disabled.full.get(relation));
  });
});
