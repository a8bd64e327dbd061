import { describe, expect, it } from 'vitest';
import { EXTRACTED_AT_COLUMN, isLineageColumn, LINEAGE_COLUMNS, rawRoot, rawTableName, RUN_ID_COLUMN, VANISHED_COLUMN, warehousePath } from '../../src/raw-contract/index.js';
import { ENGAGEMENT_TABLES } from '../../src/sources/engagement/index.js';
import { TICKETING_RESOURCES } from '../../src/sources/ticketing/index.js';
import { docPart } from '../helpers/doc-part.js';

/** The raw tables and primary keys docs/interface.md lists ("Raw tables"). */
async function documentedTables(): Promise<Map<string, string[]>> {
  const part = await docPart('docs/interface.md', 'raw-tables');
  expect(part, 'docs/interface.md has a raw-tables part').toBeDefined();
  const rows = part!.split('\n').slice(2).map((line) => line.split('|').map((cell) => cell.trim()));
  return new Map(rows.map(([, table, key]) => [table!, key!.split(',').map((column) => column.trim())]));
}

describe('the raw contract states what docs/interface.md documents', () => {
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

  it('declares exactly the tables the document lists, with their primary keys, and no field takes a lineage name', async () => {
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
    expect(tables).toEqual(await documentedTables());
    const clashes = declared.flatMap(({ table }) => Object.keys(table.fields).filter(isLineageColumn).map((field) => `${table.name}.${field}`));
    expect(clashes).toEqual([]);
  });
});
