import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultMemoryLimit } from '../../src/config/settings.js';
import { REPO, runCli, spawnCli, tempDataDir, watch } from '../helpers/cli.js';

let dataDir: string;

beforeAll(async () => {
  dataDir = tempDataDir();
  const instance = await DuckDBInstance.create(join(dataDir, 'warehouse.duckdb'));
  const connection = await instance.connect();
  await connection.run(`
    create schema marts;
    create table marts.fans as select * from (values (1, 'Ola', 3), (2, 'Kari', 5)) as fans(fan_id, first_name, matches);
    create view marts.busy_fans as select * from marts.fans where matches > 4;`);
  connection.closeSync();
  instance.closeSync();
});

/** Runs `fanlake shell` with `input` piped in, as `fanlake shell < file` does. */
function pipedShell(input: string, env: Record<string, string> = {}) {
  const shell = watch(spawnCli(['shell'], { FANLAKE_DATA_DIR: dataDir, ...env }, undefined, 'pipe'));
  shell.child.stdin!.end(input);
  return shell.done;
}

describe('fanlake shell, piped', () => {
  it('runs statements in order, across lines and several to a line, with dot commands on lines of their own', async () => {
    const result = await pipedShell([
      '.tables marts.%',
      '.mode csv',
      'select fan_id, first_name',
      '  from marts.fans order by fan_id; select count(*) as n from marts.busy_fans;',
      '.mode json',
      'select first_name from marts.fans where fan_id = 2;',
      '.exit',
      'select 1 as never_run;',
    ].join('\n'));
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/marts\.busy_fans\nmarts\.fans\n/);
    expect(result.stdout).toContain('fan_id,first_name\n1,Ola\n2,Kari\nn\n1\n');
    expect(result.stdout).toContain('[\n  {\n    "first_name": "Kari"\n  }\n]');
    expect(result.stdout).not.toContain('never_run');
  });

  it('each failing statement goes to stderr with its line; the rest still run; exit 1', async () => {
    const result = await pipedShell(['select 1 as ok;', '', 'select *', '  from no_such_table;', '.nonsense', 'select 2 as still_ok;', 'select 3'].join('\n'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: line 3: Catalog Error: Table with name no_such_table does not exist/m);
    expect(result.stderr).toMatch(/^error: line 5: unknown command \.nonsense/m);
    expect(result.stderr).toMatch(/^error: line 7: incomplete statement at the end of the input/m);
    expect(result.stdout).toContain('still_ok');
  });

  it('.schema, .read, .output and .timer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fanlake-shell-'));
    writeFileSync(join(dir, 'queries.sql'), 'select max(matches) as most from marts.fans;\nselect oops;\n');
    const outFile = join(dir, 'out.csv');
    const result = await pipedShell([
      '.schema marts.busy_fans',
      '.mode csv',
      `.read ${join(dir, 'queries.sql')}`,
      `.output ${outFile}`,
      'select first_name from marts.fans order by 1;',
      '.output',
      '.timer on',
      'select 42 as answer;',
    ].join('\n'));
    expect(result.stdout).toMatch(/^CREATE VIEW marts\.busy_fans AS SELECT \* FROM marts\.fans WHERE \(matches > 4\);$/m);
    expect(result.stdout).toContain('most\n5\n');
    expect(result.stderr).toMatch(/queries\.sql line 2: Binder Error/);
    expect(readFileSync(outFile, 'utf8')).toBe('first_name\nKari\nOla\n');
    expect(result.stdout).not.toContain('Kari');
    expect(result.stdout).toMatch(/answer\n42\nRun Time: \d+\.\d{3} s/);
    expect(result.code).toBe(1);
  });

  it('is read-only: a write is refused and the warehouse is unchanged', async () => {
    const result = await pipedShell("insert into marts.fans values (3, 'Per', 1);\n");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/read-only/i);
    const count = await runCli(['sql', 'select count(*) as n from marts.fans', '--format', 'csv'], { FANLAKE_DATA_DIR: dataDir });
    expect(count.stdout).toBe('n\n2\n');
  });
});

describe('fanlake sql exit codes', () => {
  it('0 for a query that runs, 1 for a well-formed query that fails, 2 for bad usage', async () => {
    const env = { FANLAKE_DATA_DIR: dataDir };
    expect((await runCli(['sql', 'select 1 as one', '--format', 'markdown'], env)).stdout).toBe('| one |\n|---|\n| 1 |\n');
    const failed = await runCli(['sql', 'select * from no_such_table'], env);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^error: .*no_such_table does not exist/);
    expect((await runCli(['sql'], env)).code).toBe(2);
    expect((await runCli(['sql', 'select 1', '--format', 'xml'], env)).code).toBe(2);
    const noWarehouse = await runCli(['sql', 'select 1'], { FANLAKE_DATA_DIR: tempDataDir() });
    expect(noWarehouse.code).toBe(1);
    expect(noWarehouse.stderr).toMatch(/no warehouse at .* yet/);
  });
});

describe('what readers of the warehouse may use', () => {
  it('is warehouse.memoryLimit, half the machine\'s by default, for sql and shell alike', async () => {
    const asDuckDbShowsIt = async (size: string) => {
      const instance = await DuckDBInstance.create(':memory:', { memory_limit: size });
      const connection = await instance.connect();
      const shown = (await connection.runAndReadAll(`select current_setting('memory_limit') as m`)).getRowObjectsJson()[0]!.m;
      connection.closeSync();
      instance.closeSync();
      return String(shown);
    };
    const limitOf = async (args: string[], env: Record<string, string> = {}) => {
      const result = await runCli(['sql', `select current_setting('memory_limit') as m`, '--format', 'csv', ...args], { FANLAKE_DATA_DIR: dataDir, ...env });
      expect(result.code, result.stderr).toBe(0);
      return result.stdout.split('\n')[1];
    };
    expect(await limitOf([])).toBe(await asDuckDbShowsIt(defaultMemoryLimit()));
    expect(await limitOf(['--memory-limit', '300MiB'])).toBe('300.0 MiB');
    expect(await limitOf([], { FANLAKE_MEMORY_LIMIT: '1GiB' })).toBe('1.0 GiB');
    const piped = await pipedShell(`.mode csv\nselect current_setting('memory_limit') as m;\n`, { FANLAKE_MEMORY_LIMIT: '700MiB' });
    expect(piped.stdout).toBe('m\n700.0 MiB\n');
  });

  it('has warehouse.threads, the machine\'s cores by default', async () => {
    const threadsOf = async (args: string[], env: Record<string, string>) => {
      const result = await runCli(['sql', `select current_setting('threads') as t`, '--format', 'csv', ...args], { FANLAKE_DATA_DIR: dataDir, ...env });
      expect(result.code, result.stderr).toBe(0);
      return Number(result.stdout.split('\n')[1]);
    };
    // set but empty is unset: the default (the tests' commands run with one thread, see runCli)
    expect(await threadsOf([], { FANLAKE_THREADS: '' })).toBe(availableParallelism());
    expect(await threadsOf([], { FANLAKE_THREADS: '3' })).toBe(3);
    expect(await threadsOf(['--threads', '5'], { FANLAKE_THREADS: '3' })).toBe(5);
    const zero = await runCli(['sql', 'select 1'], { FANLAKE_DATA_DIR: dataDir, FANLAKE_THREADS: '0' });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('configuration warehouse.threads: must be positive (from environment variable FANLAKE_THREADS)');
  });
});

describe('fanlake shell on a terminal', () => {
  it('Ctrl-C cancels the running query and keeps the shell; history goes to the home folder; Ctrl-D leaves', async () => {
    const home = mkdtempSync(join(tmpdir(), 'fanlake-home-'));
    // `script` gives the shell a real terminal, so Ctrl-C is a signal from the terminal as for a person.
    const command = `${process.execPath} ${join(REPO, 'bin/fanlake')} shell`;
    const terminal = watch(spawn('script', ['-qfec', command, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', HOME: home, TZ: 'UTC', FANLAKE_DATA_DIR: dataDir, TERM: 'dumb' },
      stdio: ['pipe', 'pipe', 'pipe'],
    }));
    const type = (text: string) => terminal.child.stdin!.write(text);
    await terminal.waitFor(/fanlake> /);
    type('select count(*) as endless from range(1000000000000) as a(x) where x % 7 = 99;\r');
    // Ctrl-C until the query is cancelled. Each press has one answer: one that comes before
    // the statement has begun only clears the (empty) input line and echoes `^C`, as it would
    // for a person, and is pressed again; one that comes after cancels it.
    const cancelled = terminal.waitFor(/INTERRUPT|[Ii]nterrupted/).then(() => 'cancelled' as const);
    for (let presses = 1; ; presses++) {
      type('\x03');
      const cleared = terminal.waitFor(/\^C\r?\n/, 'stdout', presses).then(() => 'cleared' as const);
      if ((await Promise.race([cancelled, cleared])) === 'cancelled') break;
    }
    type('select 6 * 7 as answer;\r');
    await terminal.waitFor(/answer[\s\S]*42/);
    type('\x04');
    const result = await terminal.done;
    expect(result.code).toBe(0);
    expect(readFileSync(join(home, '.fanlake_history'), 'utf8')).toContain('select 6 * 7 as answer;');
    expect(existsSync(join(dataDir, '.fanlake_history'))).toBe(false);
  });
});
