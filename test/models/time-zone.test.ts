import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/cli.js';
import { type Workspace, workspace } from './fixtures.js';

// DuckDB takes each connection's time zone from the machine's. fanlake's are UTC, so a server set
// to another zone builds the same tables: ISO text without an offset read as UTC, days counted in UTC.

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => ws.cleanup());

describe('a build on a machine in another time zone', () => {
  it('reads text without an offset as UTC and counts days in UTC, as on a UTC machine', async () => {
    await ws.write({
      'marts/late_sale.sql': `-- materialized: table
select
    try_cast('2024-05-01 23:30:00' as timestamptz) as sold_at,
    date_diff('day', timestamptz '2024-05-01 23:30:00+00', timestamptz '2024-05-02 00:30:00+00') as days_to_kickoff,
    current_setting('TimeZone') as time_zone
`,
    });
    // the built code, in a process whose zone is Oslo's (UTC+2 in May)
    const build = `const { buildModels } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'dist', 'models', 'index.js')).href)});
      const results = await buildModels({ dataDir: process.argv[1], modelsDir: process.argv[2] });
      if (results.some((result) => result.status !== 'ok')) throw new Error(JSON.stringify(results));`;
    await promisify(execFile)(process.execPath, ['--input-type=module', '-e', build, ws.dataDir, ws.modelsDir], { env: { ...process.env, TZ: 'Europe/Oslo' } });
    expect(await ws.query("select strftime(sold_at at time zone 'UTC', '%Y-%m-%d %H:%M') as sold_at, days_to_kickoff::int as days_to_kickoff, time_zone from marts.late_sale")).toEqual([
      { sold_at: '2024-05-01 23:30', days_to_kickoff: 1, time_zone: 'UTC' },
    ]);
  });
});
