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

/**
 * What a model computes, apart from the data it reads, as one hash: its SQL and header, the
 * macros it calls and the content of the seeds it reads (rules kept as data, such as the
 * identity rules). An incremental model whose definition changed since its last build is
 * rebuilt in full: merging rows of the new logic into rows of the old one would mix two
 * answers (dbt leaves that to a `--full-refresh` someone has to remember after an upgrade).
 */
export async function definitionFingerprints(graph: ModelGraph): Promise<Map<string, string>> {
  const macros = macroFingerprints(graph.macros);
  const definitions = new Map<string, string>();
  for (const relation of graph.order) {
    const node = graph.nodes.get(relation)!;
    if (node.kind === 'seed') {
      definitions.set(relation, createHash('sha256').update(await readFile(node.seed.path, 'utf8')).digest('hex'));
      continue;
    }
    const seeds = node.parents.filter((parent) => graph.nodes.get(parent)?.kind === 'seed');
    const inputs = [
      node.model.sql,
      node.model.materialized,
      node.model.uniqueKey.join(','),
      ...node.macros.map((macro) => `macro ${macro}=${macros.get(macro) ?? 'missing'}`),
      ...seeds.map((seed) => `seed ${seed}=${definitions.get(seed) ?? ''}`),
    ];
    definitions.set(relation, createHash('sha256').update(JSON.stringify(inputs)).digest('hex'));
  }
  return definitions;
}

/** The last successful build of a model: its fingerprint and its definition (absent when built by an older fanlake). */
export interface LastBuild {
  fingerprint: string;
  definition?: string;
}

/** The last successful build of each model. */
export async function readBuildState(connection: DuckDBConnection): Promise<Map<string, LastBuild>> {
  await connection.run(`create schema if not exists raw`);
  await connection.run(`create table if not exists ${BUILDS} (relation varchar primary key, fingerprint varchar not null, built_at timestamptz not null)`);
  // Warehouses built before definitions were kept gain the column; their models have none.
  await connection.run(`alter table ${BUILDS} add column if not exists definition varchar`);
  const rows = await queryRows(connection, `select relation, fingerprint, definition from ${BUILDS}`);
  return new Map(rows.map((row) => [String(row.relation), { fingerprint: String(row.fingerprint), ...(row.definition === null ? {} : { definition: String(row.definition) }) }]));
}

export async function recordBuild(connection: DuckDBConnection, relation: string, build: Required<LastBuild>): Promise<void> {
  await connection.run(
    `insert or replace into ${BUILDS} (relation, fingerprint, built_at, definition) values (${quoteLiteral(relation)}, ${quoteLiteral(build.fingerprint)}, now(), ${quoteLiteral(build.definition)})`,
  );
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
