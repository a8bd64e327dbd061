import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { queryRows, withConnection } from '../../src/core/duckdb.js';
import type { ModelResult } from '../../src/models/index.js';

/** A temp folder with `sql/` (the models root) and `data/` (the data dir); `cleanup()` removes it. */
export interface Workspace {
  root: string;
  modelsDir: string;
  dataDir: string;
  warehouse: string;
  /** Writes files under the models root: `{ 'marts/dim_fan.sql': '...' }`. */
  write(files: Record<string, string>): Promise<void>;
  remove(path: string): Promise<void>;
  /** Runs statements against the warehouse (opens and closes it). */
  exec(sql: string): Promise<void>;
  query(sql: string): Promise<Record<string, any>[]>;
  cleanup(): Promise<void>;
}

export async function workspace(): Promise<Workspace> {
  const root = await mkdtemp(join(tmpdir(), 'fanlake-models-'));
  const modelsDir = join(root, 'sql');
  const dataDir = join(root, 'data');
  const warehouse = join(dataDir, 'warehouse.duckdb');
  await mkdir(modelsDir, { recursive: true });
  await mkdir(dataDir, { recursive: true });
  return {
    root,
    modelsDir,
    dataDir,
    warehouse,
    async write(files) {
      for (const [path, text] of Object.entries(files)) {
        await mkdir(dirname(join(modelsDir, path)), { recursive: true });
        await writeFile(join(modelsDir, path), text);
      }
    },
    remove: (path) => rm(join(modelsDir, path), { force: true }),
    exec: (sql) => withConnection(warehouse, async (connection) => void (await connection.run(sql))),
    query: (sql) => withConnection(warehouse, (connection) => queryRows(connection, sql)),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** Two raw tables most tests read. */
export const RAW_TICKETING = `
create schema if not exists raw;
create or replace table raw.ticketing_users as
    select * from (values (1, 'ada@example.com', 'Ada'), (2, 'bob@example.com', 'Bob'), (3, null, 'Cy')) as users(id, email, name);
create or replace table raw.ticketing_tickets as
    select * from (values (10, 1, 'paid', 20.0), (11, 1, 'refunded', 15.0), (12, 2, 'paid', 30.0)) as tickets(id, id_user, status, price);
`;

/** A small project with source, model and custom tests. */
export const CHECKED_PROJECT = {
  'sources.json': JSON.stringify({
    'raw.ticketing_users': {
      tests: ['unique(id)', { test: 'not_null(email)', severity: 'warn' }],
      freshness: { field: '_extracted_at', warn_after_hours: 24, error_after_hours: 48 },
    },
    'raw.ticketing_tickets': { tests: ['not_null(id, id_user)'] },
  }),
  'staging/ticketing/stg_ticketing__users.sql': 'select id as user_id, email from raw.ticketing_users\n',
  'marts/dim_fan.sql': `-- test: unique(fan_id)
-- test: not_null(fan_id)
select distinct user_id as fan_id from staging.stg_ticketing__users
`,
  'marts/fct_tickets.sql': `-- test: relationships(fan_id -> marts.dim_fan.fan_id)
-- test: accepted_values(status: paid, refunded, 'on hold')
-- test[warn]: unique(ticket_id)
select id as ticket_id, id_user as fan_id, status, price from raw.ticketing_tickets
`,
  'tests/no_negative_prices.sql': '-- description: A price is never negative.\nselect ticket_id, price from marts.fct_tickets where price < 0;\n',
};

/** Raw users (with `_extracted_at` as ISO text) and tickets that pass every test of CHECKED_PROJECT. */
export async function seedRaw(ws: Workspace, extractedAt: string): Promise<void> {
  await ws.exec(`
      create schema if not exists raw;
      create or replace table raw.ticketing_users as
          select * from (values (1, 'ada@example.com', '${extractedAt}'), (2, 'bob@example.com', '${extractedAt}')) as users(id, email, _extracted_at);
      create or replace table raw.ticketing_tickets as
          select * from (values (10, 1, 'paid', 20.0), (11, 2, 'on hold', 15.0)) as tickets(id, id_user, status, price);
  `);
}

/** Each model's build status by name: `{ stg_users: 'ok', user_domains: 'unchanged' }`. */
export function statuses(results: readonly ModelResult[]): Record<string, string> {
  return Object.fromEntries(results.map((result) => [result.model, result.status]));
}
