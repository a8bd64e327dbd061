import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildModels } from '../../src/models/build-models.js';
import { loadWarehouse } from '../../src/load/load-warehouse.js';
import { writeRun } from '../load/raw-fixtures.js';
import { workspace, statuses } from './fixtures.js';
import type { Workspace } from './fixtures.js';

// Raw tables written by `fanlake load` (real Parquet runs, a real warehouse): a build follows
// what the loads changed, not when they ran. A ticketing run reads its lookback window again
// every hour, so most loads bring rows back unchanged, with only a newer _extracted_at.

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => ws.cleanup());

const USERS = { id: 'BIGINT', email: 'VARCHAR', last_update: 'VARCHAR' };
const PROJECT = {
  'staging/stg_users.sql': 'select id, email, _extracted_at from raw.ticketing_users\n',
  'marts/user_domains.sql': "-- materialized: table\nselect split_part(email, '@', 2) as domain, count(*) as users from staging.stg_users group by all\n",
  'marts/users_as_read.sql': '-- materialized: table\n-- as_of: extraction\nselect count(*) as users, max(_extracted_at) as as_of from staging.stg_users\n',
  'marts/users_now.sql': '-- materialized: table\n-- as_of: build\nselect count(*) as users, current_timestamp as built_at from staging.stg_users\n',
};

describe('a build after loads', () => {
  it('builds nothing after a load that only read rows again, but models that take the extraction time or the clock as now', async () => {
    await ws.write(PROJECT);
    const users = (extractedAt: string, emails: string[]) =>
      writeRun(ws.dataDir, { resource: 'users', extractedAt, columns: USERS, primaryKey: ['id'], cursorField: 'last_update', pages: [emails.map((email, i) => ({ id: i + 1, email, last_update: '2024-05-01T09:00:00.000Z' }))] });
    const build = async (fullRefresh = false) => statuses(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, fullRefresh }));
    const asRead = () => ws.query("select users::int as users, strftime(as_of at time zone 'UTC', '%Y-%m-%d %H:%M') as as_of from marts.users_as_read");

    await users('2024-05-01T10:00:00.000Z', ['a@x.no', 'b@y.no']);
    await loadWarehouse({ dataDir: ws.dataDir });
    expect(await build()).toEqual({ stg_users: 'ok', user_domains: 'ok', users_as_read: 'ok', users_now: 'ok' });

    // The same users read again an hour later: the load moves only their lineage.
    await users('2024-05-01T11:00:00.000Z', ['a@x.no', 'b@y.no']);
    const [reread] = await loadWarehouse({ dataDir: ws.dataDir });
    expect(reread).toMatchObject({ status: 'ok', inserted: 0, updated: 0 });
    expect(await build()).toEqual({ stg_users: 'unchanged', user_domains: 'unchanged', users_as_read: 'ok', users_now: 'ok' });
    expect(await asRead()).toEqual([{ users: 2, as_of: '2024-05-01 11:00' }]);

    // No load at all: only the model that reads the clock.
    expect(await build()).toEqual({ stg_users: 'unchanged', user_domains: 'unchanged', users_as_read: 'unchanged', users_now: 'ok' });

    // A changed e-mail rebuilds what reads it.
    await users('2024-05-01T12:00:00.000Z', ['a@x.no', 'b@x.no']);
    const [changed] = await loadWarehouse({ dataDir: ws.dataDir });
    expect(changed).toMatchObject({ status: 'ok', updated: 1 });
    expect(await build()).toEqual({ stg_users: 'ok', user_domains: 'ok', users_as_read: 'ok', users_now: 'ok' });
    const incremental = await ws.query('select domain, users::int as users from marts.user_domains order by domain');
    expect(incremental).toEqual([{ domain: 'x.no', users: 2 }]);

    // What a rebuild makes of the same raw rows.
    const read = await asRead();
    await build(true);
    expect(await ws.query('select domain, users::int as users from marts.user_domains order by domain')).toEqual(incremental);
    expect(await asRead()).toEqual(read);
  });

  it('refuses an as_of that names no "now" it knows', async () => {
    await ws.write({ ...PROJECT, 'marts/users_now.sql': '-- materialized: table\n-- as_of: today\nselect count(*) as users from staging.stg_users\n' });
    await expect(buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir })).rejects.toThrow(/users_now.sql: as_of: "today" is not one of extraction, build/);
  });
});
