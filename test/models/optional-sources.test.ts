import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildModels, checksFailed, runChecks } from '../../src/models/index.js';
import { type Workspace, workspace } from './fixtures.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => ws.cleanup());

describe('optional sources', () => {
  const PROJECT = {
    'sources.json': JSON.stringify({
      'raw.loyalty': { optional: true, tests: ['unique(id)'] },
      'raw.fans': { tests: ['unique(id)'] },
    }),
    'staging/stg_loyalty.sql': '-- test: unique(id)\nselect id, balance from raw.loyalty\n',
    'marts/fan_loyalty.sql': '-- test: not_null(id)\nselect id, balance from staging.stg_loyalty\n',
    'marts/dim_fans.sql': '-- test: unique(id)\nselect id from raw.fans\n',
  };

  it('skips models that read an optional source not loaded, and their descendants, without failing the build or the checks', async () => {
    await ws.exec('create schema raw; create table raw.fans as select * from (values (1), (2)) as fans(id);');
    await ws.write(PROJECT);
    const results = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    const byModel = Object.fromEntries(results.map((r) => [r.model, r]));
    expect(byModel.stg_loyalty).toMatchObject({ status: 'skipped', reason: 'optional source raw.loyalty is not loaded' });
    expect(byModel.fan_loyalty).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/parent staging\.stg_loyalty was skipped \(optional source raw\.loyalty/) });
    expect(byModel.dim_fans).toMatchObject({ status: 'ok' });

    const checks = await runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(checks.filter((c) => c.status === 'skipped').map((c) => c.target).sort()).toEqual(['marts.fan_loyalty', 'raw.loyalty', 'staging.stg_loyalty']);
    expect(checksFailed(checks)).toBe(false);
  });

  it('skips a selected model whose unselected parent was never built for want of an optional source, and names a parent that is simply not built', async () => {
    await ws.exec('create schema raw; create table raw.fans as select * from (values (1), (2)) as fans(id);');
    await ws.write({ ...PROJECT, 'marts/fan_totals.sql': 'select id from marts.dim_fans\n' });
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, select: ['dim_fans'] });

    // `--select fan_loyalty` leaves out staging.stg_loyalty, which no build has made
    const loyalty = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, select: ['fan_loyalty', 'dim_fans'] });
    const byModel = Object.fromEntries(loyalty.map((r) => [r.model, r]));
    expect(byModel.fan_loyalty).toMatchObject({ status: 'skipped', reason: 'parent staging.stg_loyalty is not built: optional source raw.loyalty is not loaded' });
    expect(byModel.dim_fans).toMatchObject({ status: 'unchanged' });

    await ws.exec('drop table marts.dim_fans');
    const [totals] = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, select: ['fan_totals'] }).then((results) => results.filter((r) => r.model === 'fan_totals'));
    expect(totals).toMatchObject({ status: 'failed' });
    expect(totals!.error?.message).toContain('reads marts.dim_fans, which is not built and not selected; build it first (--select +fan_totals)');
  });

  it('builds and checks them once the source is loaded', async () => {
    await ws.exec('create schema raw; create table raw.fans as select 1 as id; create table raw.loyalty as select 1 as id, 10 as balance;');
    await ws.write(PROJECT);
    const results = await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(results.every((r) => r.status === 'ok')).toBe(true);
    const checks = await runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    expect(checks.every((c) => c.status === 'pass')).toBe(true);
  });
});
