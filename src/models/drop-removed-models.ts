import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent } from '../core/duckdb.js';
import { forgetBuild } from './build-state.js';
import type { LastBuild } from './build-state.js';
import { type RelationKind, relationKinds } from '../warehouse/warehouse.js';
import type { ModelGraph } from './model-graph.js';

/** A model table or view dropped because its model left the project. */
export interface DroppedRelation {
  schema: string;
  name: string;
  kind: RelationKind;
}

/**
 * Drops the tables and views that an earlier build made for models no longer in the project
 * (a model file removed or renamed), and forgets their builds: left in place they would
 * still answer queries and reports with rows no build keeps up to date. Only relations the
 * build state records as built by fanlake are touched, never other tables in the same
 * schemas; macros whose files are gone are dropped the same way (macros.ts). Each drop is
 * one transaction with forgetting its build, so a crash leaves it to the next build.
 */
export async function dropRemovedModels(connection: DuckDBConnection, graph: ModelGraph, lastBuilds: ReadonlyMap<string, LastBuild>): Promise<DroppedRelation[]> {
  const inProject = new Set([...graph.nodes.keys()].map((relation) => relation.toLowerCase()));
  const dropped: DroppedRelation[] = [];
  // what stands under each name, looked up once there is something to drop
  let kinds: Map<string, RelationKind> | undefined;
  for (const relation of [...lastBuilds.keys()].sort()) {
    if (inProject.has(relation.toLowerCase())) continue;
    const [schema, name] = splitRelation(relation);
    const kind = (kinds ??= await relationKinds(connection)).get(relation.toLowerCase());
    await connection.run('begin transaction');
    try {
      if (kind !== undefined) await connection.run(`drop ${kind} ${quoteIdent(schema)}.${quoteIdent(name)}`);
      await forgetBuild(connection, relation);
      await connection.run('commit');
    } catch (error) {
      await connection.run('rollback').catch(() => undefined);
      throw error;
    }
    if (kind !== undefined) dropped.push({ schema, name, kind });
  }
  return dropped;
}

function splitRelation(relation: string): [string, string] {
  const dot = relation.indexOf('.');
  return [relation.slice(0, dot), relation.slice(dot + 1)];
}
