import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

// The CLI as shipped (bin/fanlake runs the bundle of scripts/build.mjs, with yargs'
// eager help text skipped): help is still whole, bad usage still exits 2, in English.
describe('fanlake usage', () => {
  it('lists every command in --help', async () => {
    const { code, stdout } = await runCli(['--help'], {});
    expect(code).toBe(0);
    for (const command of ['extract', 'load', 'build', 'check', 'report', 'run', 'sql', 'shell', 'status', 'schedule', 'simulate', 'help']) {
      expect(stdout).toContain(`fanlake ${command}`);
    }
  });

  it("takes the settings' flags, which its --help leaves to fanlake help settings", async () => {
    const { code, stdout } = await runCli(['extract', '--help'], {});
    expect(code).toBe(0);
    expect(stdout).toContain('--full-refresh');
    expect(stdout).not.toContain('--data-dir');
    const bad = await runCli(['status', '--concurrency', 'many'], {});
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('(from flag --concurrency)');
  });

  it('exits 2 on bad usage, in English whatever LANG says', async () => {
    const unknown = await runCli(['extract', '--bogus'], { LANG: 'nb_NO.UTF-8', LC_ALL: 'nb_NO.UTF-8' });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown argument: bogus');
    const missing = await runCli(['sql'], { LANG: 'nb_NO.UTF-8' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Not enough non-option arguments');
    const none = await runCli([], {});
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Name a command');
  });
});
