import { describe, expect, it } from 'vitest';
import { EXTRACTED_AT_COLUMN, isLineageColumn, LINEAGE_COLUMNS, rawRoot, rawTableName, RUN_ID_COLUMN, VANISHED_COLUMN, warehousePath } from '../../src/raw-contract/index.js';
import { ENGAGEMENT_TABLES } from '../../src/sources/engagement/index.js';
import { TICKETING_RESOURCES } from '../../src/sources/ticketing/index.js';

/** The raw tables and primary keys CONTRACT.md lists ("The warehouse"), copied from it. */
const CONTRACT_TABLES: Record<string, string[]> = {
  'raw.ticketing_users': ['id'],
  'raw.ticketing_members': ['id'],
  'raw.ticketing_tickets': ['id'],
  'raw.ticketing_merchandise': ['id'],
  'raw.ticketing_user_permissions': ['id_user', 'id_consent_basic'],
  'raw.engagement_customer_profiles': ['id'],
  'raw.engagement_people': ['id'],
  'raw.engagement_consents': ['id'],
  'raw.engagement_consent_texts': ['id'],
  'raw.engagement_consent_sources': ['id'],
  'raw.engagement_campaign_apps': ['id'],
  'raw.engagement_campaign_app_authentication_options': ['id'],
  'raw.engagement_participants': ['id'],
  'raw.engagement_subscriptions': ['id'],
  'raw.engagement_leaderboard_seasons': ['id'],
  'raw.engagement_top_positions': ['season_id', 'interval_id', 'demographic_value', 'customerProfileId'],
  'raw.engagement_context_nodes': ['id'],
  'raw.engagement_identities': ['id'],
};

describe('the raw contract states what CONTRACT.md fixes', () => {
  it('puts raw files under $FANLAKE_DATA_DIR/raw and the warehouse at $FANLAKE_DATA_DIR/warehouse.duckdb', () => {
    expect(rawRoot('/data')).toBe('/data/raw');
    expect(warehousePath('/data')).toBe('/data/warehouse.duckdb');
  });

  it('names the lineage columns _run_id and _extracted_at, and _vanished_at for snapshots', () => {
    expect(Object.keys(LINEAGE_COLUMNS)).toEqual(['_run_id', '_extracted_at']);
    expect([RUN_ID_COLUMN, EXTRACTED_AT_COLUMN, VANISHED_COLUMN]).toEqual(['_run_id', '_extracted_at', '_vanished_at']);
    expect(isLineageColumn('_Run_ID')).toBe(true);
    expect(isLineageColumn('run_id')).toBe(false);
  });

  it('gives every table the contract lists, with its primary key, and no declared field takes a lineage name', () => {
    const declared = [
      ...TICKETING_RESOURCES.map((table) => ({ source: 'ticketing', table })),
      ...ENGAGEMENT_TABLES.map((table) => ({ source: 'engagement', table })),
    ];
    const tables = new Map(
      declared.map(({ source, table }) => {
        const { schema, table: name } = rawTableName(source, table.name);
        return [`${schema}.${name}`, [...table.primaryKey]];
      }),
    );
    for (const [table, key] of Object.entries(CONTRACT_TABLES)) expect([table, tables.get(table)]).toEqual([table, key]);
    const clashes = declared.flatMap(({ table }) => Object.keys(table.fields).filter(isLineageColumn).map((field) => `${table.name}.${field}`));
    expect(clashes).toEqual([]);
  });
});
