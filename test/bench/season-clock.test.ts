import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { clockFile } from '../helpers/clock-file.js';
import { REPO, watch } from '../helpers/cli.js';

const SEASON_START = Date.parse('2026-06-01T00:00:00Z');

it('moves a child process to the season time in its clock file, and on a jump runs its overdue intervals once and the timeouts it passed', async () => {
  const setAt = Date.now();
  const clock = clockFile(SEASON_START);
  // A heartbeat every minute, printed with the time it read; a wake-up in 30 minutes and one in
  // two hours; stdin closing ends it.
  const script = `
    console.log('start ' + new Date().toISOString());
    setInterval(() => console.log('beat ' + new Date().toISOString()), 60_000);
    setTimeout((what) => console.log(what + ' ' + new Date().toISOString()), 30 * 60_000, 'woke');
    setTimeout(() => console.log('late'), 2 * 3_600_000);
    process.stdin.on('end', () => process.exit(0)).resume();
  `;
  const child = watch(spawn(process.execPath, ['-e', script], { cwd: REPO, env: { PATH: process.env.PATH ?? '', ...clock.env }, stdio: ['pipe', 'pipe', 'pipe'] }));
  const [, start] = (await child.waitFor(/^start (\S+)$/m)) as RegExpMatchArray & [string, string];
  // The season's time moved on at the machine's pace since the file was written, however slowly the child started.
  expect(Date.parse(start) - SEASON_START).toBeGreaterThanOrEqual(0);
  expect(Date.parse(start) - SEASON_START).toBeLessThanOrEqual(Date.now() - setAt);

  clock.set(SEASON_START + 3_600_000);
  const [, beat] = (await child.waitFor(/^beat (\S+)$/m)) as RegExpMatchArray & [string, string];
  expect(Date.parse(beat) - SEASON_START).toBeGreaterThanOrEqual(3_600_000);
  const [, woke] = (await child.waitFor(/^woke (\S+)$/m)) as RegExpMatchArray & [string, string];
  expect(Date.parse(woke) - SEASON_START).toBeGreaterThanOrEqual(3_600_000);
  // One beat for the jump, not sixty; the wake-up once; the timeout the jump did not reach waits.
  child.child.stdin!.end();
  const done = await child.done;
  expect(done.code, done.stderr).toBe(0);
  expect(done.stdout.match(/^beat /gm)).toHaveLength(1);
  expect(done.stdout.match(/^woke /gm)).toHaveLength(1);
  expect(done.stdout).not.toContain('late');
});
