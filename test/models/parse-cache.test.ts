import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, IN_MEMORY, openDatabase } from '../../src/core/duckdb.js';
import { buildModels } from '../../src/models/build-models.js';
import { discoverProject, DEFAULT_MODELS_DIR } from '../../src/models/discover-project.js';
import { buildGraph, type ModelGraph } from '../../src/models/model-graph.js';
import { ModelProjectError } from '../../src/models/model-errors.js';
import { PARSE_CACHE_FILE, ParseCache } from '../../src/models/parse-cache.js';
import { statuses, workspace } from './fixtures.js';
import type { Workspace } from './fixtures.js';

let ws: Workspace;

beforeEach(async () => {
  ws = await workspace();
});

afterEach(async () => {
  await ws.cleanup();
});

/** Everything a build reads of a graph, as one text. */
const shape = (graph: ModelGraph) => JSON.stringify({ nodes: [...graph.nodes], order: graph.order, children: [...graph.children], macros: [...graph.macros] });

/** The graph of the project in `modelsDir`, parsed with the cache file at `path` (kept after). */
async function cachedGraph(modelsDir: string, path: string): Promise<ModelGraph> {
  const instance = await openDatabase(IN_MEMORY, { threads: 1 });
  const connection = await connect(instance);
  try {
    const cache = await ParseCache.open(path);
    const graph = await buildGraph(await discoverProject(modelsDir), connection, undefined, cache);
    await cache.save();
    return graph;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function freshGraph(modelsDir: string): Promise<ModelGraph> {
  const instance = await openDatabase(IN_MEMORY, { threads: 1 });
  const connection = await connect(instance);
  try {
    return await buildGraph(await discoverProject(modelsDir), connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('parses kept between builds', () => {
  it('gives the graph of the project (its incremental models first-build SQL too) as a fresh parse does', async () => {
    const path = join(ws.dataDir, PARSE_CACHE_FILE);
    const parsed = await cachedGraph(DEFAULT_MODELS_DIR, path);
    expect(existsSync(path)).toBe(true);
    const kept = await cachedGraph(DEFAULT_MODELS_DIR, path);
    const fresh = await freshGraph(DEFAULT_MODELS_DIR);
    expect(shape(parsed)).toBe(shape(fresh));
    expect(shape(kept)).toBe(shape(fresh));
    expect(kept.nodes.get('intermediate.int_ticketing_user_fans')).toMatchObject({ kind: 'model', firstBuildSql: expect.stringContaining('int_identity_clusters') });
  });

  it('parses a changed model, a changed macro and a broken model again', async () => {
    const path = join(ws.dataDir, PARSE_CACHE_FILE);
    await ws.write({
      'macros/doubled.sql': 'create or replace macro macros.doubled(x) as x * 2;\n',
      'staging/ticketing/stg_ticketing__users.sql': 'select id as user_id, macros.doubled(id) as twice from raw.ticketing_users\n',
      'marts/dim_fan.sql': 'select user_id as fan_id from staging.stg_ticketing__users\n',
    });
    await cachedGraph(ws.modelsDir, path);
    await ws.write({
      'macros/doubled.sql': 'create or replace macro macros.doubled(x) as macros.tripled(x) - x;\n',
      'macros/tripled.sql': 'create or replace macro macros.tripled(x) as x * 3;\n',
      'marts/dim_fan.sql': 'select user_id as fan_id from staging.stg_ticketing__users cross join raw.ticketing_tickets\n',
    });
    const changed = await cachedGraph(ws.modelsDir, path);
    expect(changed.macros.get('doubled')?.calls).toEqual(['tripled']);
    expect(changed.nodes.get('marts.dim_fan')).toMatchObject({ sources: ['raw.ticketing_tickets'] });
    expect(shape(changed)).toBe(shape(await freshGraph(ws.modelsDir)));

    await ws.write({ 'marts/dim_fan.sql': 'select user_id as fan_id from users\n' });
    for (let build = 0; build < 2; build++) {
      const error = await cachedGraph(ws.modelsDir, path).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ModelProjectError);
      expect((error as ModelProjectError).problems.join('\n')).toMatch(/"users" is not schema-qualified/);
    }
  });

  it('is written by a build, keeps only the texts it used, and a file of another shape is no cache', async () => {
    await ws.exec('create schema raw; create table raw.events as select 1 as id');
    await ws.write({ 'marts/fct_events.sql': 'select id from raw.events\n', 'marts/old_events.sql': 'select id from marts.fct_events\n' });
    expect(statuses(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir }))).toMatchObject({ fct_events: 'ok', old_events: 'ok' });
    const path = join(ws.dataDir, PARSE_CACHE_FILE);
    const keys = () => Object.keys((JSON.parse(readFileSync(path, 'utf8')) as { models: object }).models);
    const before = keys();
    expect(before).toHaveLength(2);
    await ws.remove('marts/old_events.sql');
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(keys()).toHaveLength(1);
    expect(before).toContain(keys()[0]);

    // another shape under the same keys (another version's), then a torn file
    const kept = JSON.parse(readFileSync(path, 'utf8')) as { macros: { key: string }; models: Record<string, unknown> };
    writeFileSync(path, JSON.stringify({ version: 1, macros: { key: kept.macros.key, nodes: [] }, models: Object.fromEntries(Object.keys(kept.models).map((key) => [key, {}])) }));
    expect(statuses(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir }))).toMatchObject({ fct_events: 'unchanged' });
    writeFileSync(path, '{"version": 1, "models": ');
    await ws.write({ 'marts/fct_events.sql': 'select id, id + 1 as next_id from raw.events\n' });
    expect(statuses(await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir }))).toMatchObject({ fct_events: 'ok' });
    expect(await ws.query('select next_id from marts.fct_events')).toEqual([{ next_id: 2 }]);
    expect(keys()).toHaveLength(1);
    expect(before).not.toContain(keys()[0]);
  });
});
