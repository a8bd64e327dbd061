import type { DuckDBConnection } from '@duckdb/node-api';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/atomic-file.js';
import { queryRows, quoteLiteral } from '../core/duckdb.js';
import { MACRO_SCHEMA, SEEDS_SCHEMA } from './discover-project.js';
import type { PersonalFields } from '../sources/personal-data.js';
import type { Materialization } from './model-header.js';
import type { ModelGraph } from './model-graph.js';

/** Written by `fanlake build` into the data dir; reports read it. */
export const LINEAGE_FILE = 'lineage.json';

export interface LineageColumn {
  name: string;
  /** DuckDB's type name, e.g. `VARCHAR`, `TIMESTAMP WITH TIME ZONE`, `STRUCT(...)`. */
  type: string;
}

export interface LineageModel {
  name: string;
  schema: string;
  relation: string;
  /** Source file, from the models root's folder: `sql/marts/dim_fan.sql`. */
  file: string;
  materialized: Materialization;
  uniqueKey?: string[];
  /** Columns that say where a row came from (`-- lineage_columns`), when the model names any. */
  lineageColumns?: string[];
  /** Columns that carry personal data, by kind (`-- personal`), when the model declares any. */
  personal?: PersonalFields;
  description?: string;
  parents: {
    /** Models read, as `schema.name`. */
    models: string[];
    /** `seeds.*` read. */
    seeds: string[];
    /** `raw.*` read. */
    sources: string[];
    /** Macros called, as `macros.<name>` (directly; the macros they call are not repeated). */
    macros: string[];
  };
  /** As the warehouse has it after the build; `null` when the model has never been built. */
  columns: LineageColumn[] | null;
}

export interface LineageRelation {
  relation: string;
  columns: LineageColumn[] | null;
}

/** The whole file. Models are in build order (parents first). */
export interface Lineage {
  version: 1;
  generatedAt: string;
  models: LineageModel[];
  seeds: LineageRelation[];
  sources: LineageRelation[];
}

/** Describes every model, seed and source of the graph as the warehouse has them now. */
export async function collectLineage(connection: DuckDBConnection, graph: ModelGraph, now = new Date()): Promise<Lineage> {
  const nodes = graph.order.map((relation) => graph.nodes.get(relation)!);
  const sources = [...new Set(nodes.flatMap((node) => node.sources))].sort();
  const columns = await describeRelations(connection, [...graph.order, ...sources]);
  const models: LineageModel[] = [];
  const seeds: LineageRelation[] = [];
  for (const node of nodes) {
    if (node.kind === 'seed') {
      seeds.push({ relation: node.relation, columns: columns.get(node.relation) ?? null });
      continue;
    }
    const { model } = node;
    models.push({
      name: model.name,
      schema: model.schema,
      relation: model.relation,
      file: model.file,
      materialized: model.materialized,
      ...(model.uniqueKey.length > 0 ? { uniqueKey: model.uniqueKey } : {}),
      ...(model.lineageColumns.length > 0 ? { lineageColumns: model.lineageColumns } : {}),
      ...(Object.keys(model.personal).length > 0 ? { personal: model.personal } : {}),
      ...(model.description ? { description: model.description } : {}),
      parents: {
        models: node.parents.filter((parent) => !parent.startsWith(`${SEEDS_SCHEMA}.`)),
        seeds: node.parents.filter((parent) => parent.startsWith(`${SEEDS_SCHEMA}.`)),
        sources: node.sources,
        macros: node.macros.map((macro) => `${MACRO_SCHEMA}.${macro}`),
      },
      columns: columns.get(model.relation) ?? null,
    });
  }
  return {
    version: 1,
    generatedAt: now.toISOString(),
    models,
    seeds,
    sources: sources.map((relation) => ({ relation, columns: columns.get(relation) ?? null })),
  };
}

export async function writeLineage(dataDir: string, lineage: Lineage): Promise<string> {
  const path = join(dataDir, LINEAGE_FILE);
  await writeFileAtomic(path, `${JSON.stringify(lineage, null, 2)}\n`);
  return path;
}

/** The last build's lineage, or `undefined` when no build has written one. */
export async function readLineage(dataDir: string): Promise<Lineage | undefined> {
  try {
    return JSON.parse(await readFile(join(dataDir, LINEAGE_FILE), 'utf8')) as Lineage;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Columns of tables and views by relation, in column order, in one catalog query. */
async function describeRelations(connection: DuckDBConnection, relations: string[]): Promise<Map<string, LineageColumn[]>> {
  const byRelation = new Map<string, LineageColumn[]>();
  if (relations.length === 0) return byRelation;
  const rows = await queryRows(
    connection,
    `select lower(table_schema || '.' || table_name) as relation, column_name, data_type
     from information_schema.columns
     where table_catalog = current_database()
       and lower(table_schema || '.' || table_name) in (${relations.map(quoteLiteral).join(', ')})
     order by relation, ordinal_position`,
  );
  for (const row of rows) {
    const relation = String(row.relation);
    const list = byRelation.get(relation) ?? [];
    list.push({ name: String(row.column_name), type: String(row.data_type) });
    byRelation.set(relation, list);
  }
  return byRelation;
}
