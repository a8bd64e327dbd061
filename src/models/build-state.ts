import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows, quoteIdent, quoteLiteral } from '../core/duckdb.js';
import { macroFingerprints } from './macros.js';
import type { ModelGraph } from './model-graph.js';
import { EXTRACTED_AT_COLUMN } from '../raw-contract/index.js';

/** Where the fingerprint of each model's last successful build is kept, in the warehouse itself. */
const BUILDS = 'raw._fanlake_builds';

/**
 * What a model's output depends on, as one hash: its SQL and header, its parents'
 * fingerprints, the macros it calls (each with the macros it calls in turn, so a changed
 * macro or setting rebuilds its callers and their descendants) and, for the raw tables it
 * reads, their row count and newest `_extracted_at` (what every load changes). A model whose fingerprint matches its last
 * build is left as it is, so a build costs what changed, not the warehouse.
 * Raw tables edited by hand without changing either need `build --full-refresh`.
 */
export async function fingerprintGraph(connection: DuckDBConnection, graph: ModelGraph, presentSources: ReadonlySet<string>): Promise<Map<string, string>> {
  const sources = new Map<string, string>();
  for (const node of graph.nodes.values()) {
    for (const source of node.sources) {
      if (sources.has(source) || !presentSources.has(source)) continue;
      const table = source.split('.').map(quoteIdent).join('.');
      const [row] = await queryRows(connection, `select count(*)::varchar || '|' || coalesce(max(${EXTRACTED_AT_COLUMN})::varchar, '') as state from ${table}`).catch(async () =>
        queryRows(connection, `select count(*)::varchar as state from ${table}`),
      );
      sources.set(source, String(row?.state ?? ''));
    }
  }
  const macros = macroFingerprints(graph.macros);
  const fingerprints = new Map<string, string>();
  for (const relation of graph.order) {
    const node = graph.nodes.get(relation)!;
    const inputs =
      node.kind === 'seed'
        ? [await readFile(node.seed.path, 'utf8')]
        : [
            node.model.sql,
            node.model.materialized,
            node.model.uniqueKey.join(','),
            ...node.parents.map((parent) => `${parent}=${fingerprints.get(parent) ?? ''}`),
            ...node.sources.map((source) => `${source}=${sources.get(source) ?? 'missing'}`),
            // Absent for a model without macros, so its fingerprint is as before macros existed.
            ...node.macros.map((macro) => `macro ${macro}=${macros.get(macro) ?? 'missing'}`),
          ];
    fingerprints.set(relation, createHash('sha256').update(JSON.stringify(inputs)).digest('hex'));
  }
  return fingerprints;
}

/** Fingerprints of the last successful build of each model. */
export async function readBuildState(connection: DuckDBConnection): Promise<Map<string, string>> {
  await connection.run(`create schema if not exists raw`);
  await connection.run(`create table if not exists ${BUILDS} (relation varchar primary key, fingerprint varchar not null, built_at timestamptz not null)`);
  const rows = await queryRows(connection, `select relation, fingerprint from ${BUILDS}`);
  return new Map(rows.map((row) => [String(row.relation), String(row.fingerprint)]));
}

export async function recordBuild(connection: DuckDBConnection, relation: string, fingerprint: string): Promise<void> {
  await connection.run(`insert or replace into ${BUILDS} values (${quoteLiteral(relation)}, ${quoteLiteral(fingerprint)}, now())`);
}

/** Tables and views of the model schemas that exist now. */
export async function existingRelations(connection: DuckDBConnection): Promise<Set<string>> {
  const rows = await queryRows(
    connection,
    `select lower(schema_name || '.' || table_name) as relation from duckdb_tables() where database_name = current_database()
     union all
     select lower(schema_name || '.' || view_name) from duckdb_views() where database_name = current_database() and not internal`,
  );
  return new Set(rows.map((row) => String(row.relation)));
}
