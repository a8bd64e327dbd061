import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IN_MEMORY, queryRows, quoteLiteral, withConnection } from '../../../src/core/duckdb.js';
import { type SnapshotRun, extractSnapshot } from '../../../src/extract/engine/snapshot-engine.js';
import { type HttpClient, createHttpClient } from '../../../src/extract/http/index.js';
import { ExtractProgress } from '../../../src/extract/progress.js';
import { KeptConversionDatabase } from '../../../src/extract/spool/index.js';
import { newRunId } from '../../../src/raw-contract/index.js';
import type { EndpointDeclaration } from '../../../src/sources/endpoint-declaration.js';
import { json, type LoopbackServer, startServer } from '../http/loopback-server.js';

interface Settings {
  readonly regions: readonly string[];
}

/** Five things on pages of two, each with an owner (some shared); two of them special. */
const THINGS = [
  { id: 't1', kind: 'plain', owner: 'o1' },
  { id: 't2', kind: 'special', owner: 'o1' },
  { id: 't3', kind: 'plain', owner: 'o2' },
  { id: 't4', kind: 'special', owner: 'o2' },
  { id: 't5', kind: 'special', owner: 'o3' },
];

const ENDPOINTS: EndpointDeclaration<Settings>[] = [
  {
    name: 'things', path: '/things', paging: { style: 'page-index' }, itemsKey: 'things', primaryKey: ['id'],
    fields: { id: 'string', kind: 'string', owner: 'string' }, notFound: 'empty',
    linked: [{ member: 'owners', name: 'owners', primaryKey: ['id'], fields: { id: 'string' }, dedupe: true }],
  },
  {
    name: 'details', path: '/details/{id}', paging: { style: 'none' }, primaryKey: ['id'], fields: { id: 'string', detail: 'string' },
    notFound: 'empty', fanOut: { parent: 'things', key: 'id', when: (thing) => thing.kind === 'special', label: 'thing {id}' },
  },
  {
    name: 'scores', path: '/scores', paging: { style: 'none' }, primaryKey: ['region', 'id'], fields: { region: 'string', id: 'string', score: 'int' },
    notFound: 'error',
    fanOut: { children: (_parent, settings) => settings.regions.map((region) => ({ query: { region }, inject: { region }, label: `region ${region}` })) },
  },
  { name: 'vault', path: '/vault', paging: { style: 'none' }, primaryKey: ['id'], fields: { id: 'string' }, module: 'vault', notFound: 'empty' },
];

let server: LoopbackServer;
let dataDir: string;
let duckdb: KeptConversionDatabase;
let client: HttpClient;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fanlake-engine-'));
  duckdb = new KeptConversionDatabase();
  client = createHttpClient({ concurrency: 2, timeoutMs: 2000, maxAttempts: 2, baseDelayMs: 1, userAgent: 'test' });
  server = await startServer((req, res, n) => {
    const url = new URL(req.url!, 'http://x');
    const path = url.pathname.replace(/^\/v2\/1/, '');
    if (path === '/things') {
      const index = Number(url.searchParams.get('pageIndex'));
      const page = THINGS.slice(index * 2, index * 2 + 2);
      return json(200, { things: page, linked: { owners: page.map((thing) => ({ id: thing.owner })) } })(req, res, n);
    }
    const detail = /^\/details\/(\w+)$/.exec(path)?.[1];
    if (detail === 't4') return json(404, { message: 'Could not find' })(req, res, n);
    if (detail === 't5') return json(500, {})(req, res, n);
    if (detail) return json(200, { id: detail, detail: `about ${detail}` })(req, res, n);
    if (path === '/scores') {
      const region = url.searchParams.get('region');
      return region === 'nowhere' ? json(404, {})(req, res, n) : json(200, [{ id: 'a', score: 1 }, { id: 'b', score: 2 }])(req, res, n);
    }
    if (path === '/vault') return json(403, { message: 'Module vault is not enabled' })(req, res, n);
    return json(500, {})(req, res, n);
  });
});

afterEach(async () => {
  await client.close();
  await server.close();
  await duckdb.close();
  await rm(dataDir, { recursive: true, force: true });
});

function run(settings: Settings, only?: string[]): SnapshotRun<Settings> {
  const quiet = new Writable({ write: (_chunk, _encoding, done) => done() }) as unknown as NodeJS.WriteStream;
  const runStartedAt = new Date('2026-06-01T00:00:00Z');
  return {
    dataDir, runId: newRunId(runStartedAt), runStartedAt, duckdb, client, only, settings,
    connection: { source: 'engagement', baseUrl: `${server.origin}/v2/1`, authorization: 'Basic k', credentialHint: 'check the key' },
    progress: new ExtractProgress(quiet, false),
    accept: 'application/json',
    pageSize: 2,
    concurrency: 2,
  };
}

async function parquetRows(resource: string): Promise<Record<string, unknown>[]> {
  const glob = join(dataDir, 'raw', 'engagement', resource, '*', '*.parquet');
  return withConnection(IN_MEMORY, (connection) =>
    queryRows(connection, `select * exclude (_run_id, _extracted_at) from read_parquet(${quoteLiteral(glob)}, hive_partitioning = false) order by all`),
  );
}

describe('extractSnapshot', () => {
  it('pages a list with its linked members, fans out over the items it selects, and names what failed', async () => {
    const results = await extractSnapshot(run({ regions: ['north', 'south'] }), ENDPOINTS);
    const byName = Object.fromEntries(results.map((result) => [result.resource, result]));

    // Pages 0 (full), then 1 and 2 in one wave; page 2 is short and ends the list.
    expect(byName.things).toMatchObject({ status: 'ok', rows: 5, requests: 3 });
    expect(byName.owners).toMatchObject({ status: 'ok', rows: 3, requests: 0 });
    expect(await parquetRows('owners')).toEqual([{ id: 'o1' }, { id: 'o2' }, { id: 'o3' }]);

    // One request per special thing; t4's 404 is nothing here; t5 fails after its retries.
    expect(byName.details).toMatchObject({ status: 'partial', rows: 1, requests: 2 });
    expect(byName.details!.notes).toEqual(['1 child requests failed after retries']);
    expect(byName.details!.errors).toEqual([
      expect.objectContaining({ code: 'E_HTTP_GAVE_UP', retryable: true, context: expect.objectContaining({ source: 'engagement', resource: 'details', childId: 'thing t5', status: 500 }) }),
    ]);
    expect(await parquetRows('details')).toEqual([{ id: 't2', detail: 'about t2' }]);

    // Children from the settings alone, with the columns their request implies.
    expect(byName.scores).toMatchObject({ status: 'ok', rows: 4, requests: 2 });
    // (BIGINTs come back as text.)
    expect(await parquetRows('scores')).toEqual([
      { region: 'north', id: 'a', score: '1' },
      { region: 'north', id: 'b', score: '2' },
      { region: 'south', id: 'a', score: '1' },
      { region: 'south', id: 'b', score: '2' },
    ]);

    expect(byName.vault).toMatchObject({ status: 'skipped', rows: 0, errors: [], notes: ['not enabled for this organization (the API answered 403; module vault)'] });
  });

  it('fails a child whose 404 the declaration calls an error', async () => {
    const results = await extractSnapshot(run({ regions: ['north', 'nowhere'] }, ['scores']), ENDPOINTS);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ resource: 'scores', status: 'partial', rows: 2 });
    expect(results[0]!.errors).toEqual([
      expect.objectContaining({ code: 'E_HTTP_STATUS', retryable: false, context: expect.objectContaining({ resource: 'scores', childId: 'region nowhere', status: 404 }) }),
    ]);
  });

  it('reads a fan-out\'s parent when only the fan-out is asked for, and nothing else', async () => {
    const results = await extractSnapshot(run({ regions: [] }, ['details']), ENDPOINTS);
    expect(results.map((result) => result.resource).sort()).toEqual(['details', 'owners', 'things']);
    expect(server.requests.map((req) => req.url).filter((url) => !url!.includes('/things'))).toEqual(
      expect.arrayContaining(['/v2/1/details/t2', '/v2/1/details/t4', '/v2/1/details/t5']),
    );
    expect(server.requests.some((req) => req.url!.includes('/details/t1') || req.url!.includes('/details/t3'))).toBe(false);
  });
});
