import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { quoteIdent, quoteLiteral, withConnection } from '../../src/core/duckdb.js';
import { buildModels } from '../../src/models/index.js';
import { ENGAGEMENT_TABLES } from '../../src/sources/engagement/index.js';
import { duckdbColumns, type FieldDeclarations } from '../../src/sources/fields.js';
import { TICKETING_RESOURCES } from '../../src/sources/ticketing/resources.js';
import type { Simulator } from '../../src/simulator/simulator.js';
import { runCli, tempDataDir } from '../helpers/cli.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { storeClubModel } from './identity-model-fixture.js';

/** `build --select` arguments for identity resolution, everything it reads, and the other engagement staging models. */
export const IDENTITY_SELECT = [
  '--select', '+fan_identity_links', '+dim_fan', 'int_identity_term_frequencies',
  ...['campaign_apps', 'consent_sources', 'consent_texts', 'identities', 'leaderboard_intervals', 'leaderboard_seasons', 'participants', 'top_positions'].map(
    (entity) => `stg_engagement__${entity}`,
  ),
];

/** Every raw table of both sources, by contract name, with its declared fields. */
const RAW_TABLES: Record<string, FieldDeclarations> = {
  ...Object.fromEntries(TICKETING_RESOURCES.map((resource) => [`ticketing_${resource.name}`, resource.fields])),
  ...Object.fromEntries(ENGAGEMENT_TABLES.map((table) => [`engagement_${table.name}`, table.fields])),
};

export type RawRecords = Partial<Record<string, Record<string, unknown>[]>>;

/**
 * Creates (or replaces) every raw table with the loader's column types (the field declarations
 * through `duckdbColumns`, plus the lineage columns) holding the given items as the API would
 * send them, extracted at `extractedAt`; tables without items are empty. Engagement tables
 * (snapshot resources) carry `_vanished_at` too, as the loader creates it with their first load.
 * Unless the warehouse has one, the identity model a club of thousands would have is stored too
 * (identity-model-fixture.ts): a handful of records is too few to train on.
 */
export async function writeRawTables(warehousePath: string, records: RawRecords, extractedAt = '2026-06-01T00:00:00Z'): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'fanlake-identity-raw-'));
  await withConnection(warehousePath, async (connection) => {
    await connection.run('create schema if not exists raw');
    for (const [table, fields] of Object.entries(RAW_TABLES)) {
      const items = records[table] ?? [];
      const columns: Record<string, string> = { ...duckdbColumns(fields), _run_id: 'VARCHAR', _extracted_at: 'TIMESTAMPTZ' };
      if (table.startsWith('engagement_')) columns._vanished_at = 'TIMESTAMPTZ';
      const target = `raw.${quoteIdent(table)}`;
      if (items.length === 0) {
        await connection.run(`create or replace table ${target} (${Object.entries(columns).map(([name, type]) => `${quoteIdent(name)} ${type}`).join(', ')})`);
        continue;
      }
      const file = join(folder, `${table}.ndjson`);
      const lineage = { _run_id: 'fixture', _extracted_at: extractedAt };
      writeFileSync(file, items.map((item) => JSON.stringify({ ...lineage, ...item })).join('\n') + '\n');
      const spec = `{${Object.entries(columns).map(([name, type]) => `${quoteLiteral(name)}: ${quoteLiteral(type)}`).join(', ')}}`;
      await connection.run(`create or replace table ${target} as select * from read_json(${quoteLiteral(file)}, format = 'newline_delimited', columns = ${spec})`);
    }
    await storeClubModel(connection);
  });
}

/** A ticketing user as the export API sends it, updated before any extraction of the tests. */
export const user = (id: number, fields: Record<string, unknown>) => ({ id, last_update: '2026-01-01T00:00:00.000Z', enabled: true, ...fields });
/** An engagement customer profile as the API sends it. */
export const profile = (id: number, fields: Record<string, unknown>) => ({ id: String(id), type: 'customerProfiles', ...fields });
/** A person (an identity) of customer profile `customerProfileId`, of `network`. */
export const person = (id: number, customerProfileId: number, fields: Record<string, unknown>, network = 'email') => ({
  id: String(id), type: 'people', network, customerProfileId, ...fields,
});
/** A birth date as the engagement API writes it. */
export const born = (date: string) => `${date}T00:00:00.000Z`;

/**
 * A club around hand-made traps: `count` ticketing users of names nobody else has, each a fan of
 * its own. Names are weighed by how many people carry them, and in a club of a dozen people
 * every name is common.
 */
export function clubBackground(count = 60): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, at) => ({
    id: 9000 + at,
    last_update: '2026-01-01T00:00:00.000Z',
    enabled: true,
    name_first: `Given${String.fromCharCode(97 + (at % 26))}${at}`,
    name_last: `Family${at}`,
    email: `member${at}@club.example`,
    phone: `4${String(1000000 + at).padStart(7, '0')}`,
  }));
}

/** The environment that points the CLI at a simulator and a data dir. */
export function cliEnv(sim: Simulator, dataDir: string): Record<string, string> {
  return {
    FANLAKE_TICKETING_URL: sim.url,
    FANLAKE_TICKETING_TOKEN: sim.options.ticketingToken,
    FANLAKE_ENGAGEMENT_URL: sim.url,
    FANLAKE_ENGAGEMENT_API_KEY: sim.options.engagementApiKey,
    FANLAKE_ENGAGEMENT_ORG_ID: sim.options.orgId,
    FANLAKE_DATA_DIR: dataDir,
  };
}

/** Runs one CLI command and fails the test, with its output, unless it exits 0. */
export async function runCliOk(args: string[], env: Record<string, string>): Promise<string> {
  const result = await runCli(args, env);
  expect(result.code, `fanlake ${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

/** Where identity resolution put hand-made records: each record key's fan and the rule that linked it. */
export interface TrapPlacement {
  dataDir: string;
  fanOf: Map<string, string>;
  ruleOf: Map<string, string>;
}

/** Writes hand-made raw records, builds `+fan_identity_links` (and the `also` selections) through the real models, and reads where each record went. */
export async function placeTrapRecords(records: RawRecords, also: string[] = []): Promise<TrapPlacement> {
  const dataDir = tempDataDir();
  await writeRawTables(join(dataDir, 'warehouse.duckdb'), records);
  const results = await buildModels({ dataDir, select: ['+fan_identity_links', ...also] });
  const failed = results.filter((result) => result.status !== 'ok');
  expect(failed.map((result) => `${result.schema}.${result.model}: ${result.error?.message ?? result.reason}`)).toEqual([]);
  const links = await queryWarehouse(dataDir, `select fan_id, system || ':' || record_id as record_key, match_rule from marts.fan_identity_links`);
  return {
    dataDir,
    fanOf: new Map(links.map((link) => [link.record_key as string, link.fan_id as string])),
    ruleOf: new Map(links.map((link) => [link.record_key as string, link.match_rule as string])),
  };
}

/** One test per pair of record keys that must be one fan (linked by the rule named) and per pair that must stay apart. */
export function itPlacesTraps(sameFan: [string, string, string][], apart: [string, string][], placement: () => TrapPlacement): void {
  it.each(sameFan)('links %s and %s by %s', (left, right, rule) => {
    const { fanOf, ruleOf } = placement();
    expect(fanOf.get(left)).toBeDefined();
    expect(fanOf.get(left)).toBe(fanOf.get(right));
    expect([ruleOf.get(left), ruleOf.get(right)]).toContain(rule);
  });

  it.each(apart)('keeps %s and %s apart', (left, right) => {
    const { fanOf } = placement();
    expect(fanOf.get(left)).toBeDefined();
    expect(fanOf.get(right)).toBeDefined();
    expect(fanOf.get(left)).not.toBe(fanOf.get(right));
  });
}
