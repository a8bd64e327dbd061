import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yargs from 'yargs';
import { describe, expect, it } from 'vitest';
import { SETTINGS_POINTER } from '../../src/cli/command.js';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { settingDocs } from '../../src/config/settings-docs.js';
import { runCli } from '../helpers/cli.js';

/** What a terminal of 80 by 24 shows of a help text at once. */
const SCREEN = 24;
/** Options every command has, which are not its own. */
const GLOBAL = new Set(['help', 'version', 'config']);

/** A command's own positionals and options, as its module declares them. */
async function ownArguments(name: string): Promise<{ positionals: string[]; options: string[] }> {
  const module = await COMMANDS[name]!();
  const positionals = [...module.command.matchAll(/[<[](\w+)(?:\.\.)?[>\]]/g)].map((match) => match[1]!);
  // getOptions() is yargs' own, missing from its type declarations.
  const built = module.builder(yargs([])) as unknown as { getOptions(): { key: Record<string, unknown>; alias: Record<string, string[]> } };
  const { key, alias } = built.getOptions();
  const aliases = new Set(Object.values(alias).flat());
  return { positionals, options: Object.keys(key).filter((option) => !GLOBAL.has(option) && !aliases.has(option) && !positionals.includes(option)) };
}

/** `help --help` is the general help, so the help command's own text is asked for with a topic. */
const helpArgs = (name: string) => (name === 'help' ? ['help', 'settings', '--help'] : [name, '--help']);

describe('help', () => {
  for (const name of Object.keys(COMMANDS)) {
    it(`${name} --help shows its own arguments and options in its first ${SCREEN} lines, then where settings are explained`, async () => {
      const { code, stdout } = await runCli(helpArgs(name), {});
      expect(code).toBe(0);
      const lines = stdout.trimEnd().split('\n');
      const screen = lines.slice(0, SCREEN).join('\n');
      const { positionals, options } = await ownArguments(name);
      for (const option of options) expect(screen, `--${option} within the first ${SCREEN} lines`).toMatch(new RegExp(`--${option}\\b`));
      for (const positional of positionals) expect(screen, `${positional} within the first ${SCREEN} lines`).toMatch(new RegExp(`\\b${positional}\\b`));
      expect(lines.at(-1)).toBe(SETTINGS_POINTER);
      expect(stdout, 'the settings stay out of a command\'s help').not.toContain('--data-dir');
    });
  }

  it('help settings lists every declared setting with its variable, config key, flag and default', async () => {
    const { code, stdout } = await runCli(['help', 'settings'], {});
    expect(code).toBe(0);
    const entries = stdout.split('\n\n');
    for (const doc of settingDocs()) {
      const entry = entries.find((text) => text.startsWith(`${doc.env}\n`));
      expect(entry, doc.env).toBeDefined();
      const flat = entry!.replace(/\s+/g, ' ');
      expect(flat).toContain(`config ${doc.key}`);
      expect(flat).toContain(doc.flag === undefined ? 'no flag (a secret' : `flag ${doc.flag}`);
      expect(flat).toContain(`default ${doc.default}`);
    }
    expect(entries.filter((text) => /^FANLAKE_\w+\n/.test(text))).toHaveLength(settingDocs().length);
  });

  it('help settings works when the configuration is what is wrong, and help COMMAND is COMMAND --help', async () => {
    const broken = await runCli(['help', 'settings'], { FANLAKE_CONCURRENCY: 'many' });
    expect(broken.code).toBe(0);
    expect(broken.stdout).toContain('FANLAKE_CONCURRENCY');
    const [viaHelp, direct] = await Promise.all([runCli(['help', 'report'], {}), runCli(['report', '--help'], {})]);
    expect(viaHelp.stdout).toBe(direct.stdout);
    const unknown = await runCli(['help', 'nothing'], {});
    expect(unknown.code).toBe(2);
  });

  it('schedule --help shows a schedule as the config file holds it, with a cron example and its time zone, that schedule --list takes', async () => {
    const { stdout } = await runCli(['schedule', '--help'], {});
    expect(stdout).toContain('"cron": "0 6 * * *"');
    expect(stdout).toContain('"timeZone": "Europe/Oslo"');
    const example = /^ {2}"schedules": \[[\s\S]*?^ {2}\]$/m.exec(stdout)?.[0];
    expect(example).toBeDefined();
    const cwd = mkdtempSync(join(tmpdir(), 'fanlake-help-'));
    writeFileSync(join(cwd, 'fanlake.config.json'), `{\n${example}\n}\n`);
    const listed = await runCli(['schedule', '--list', '--from', '2026-01-05T00:00:00Z'], {}, { cwd });
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('2026-01-05 08:00 CET');
    expect(listed.stdout).toContain('2026-01-06 06:00 CET');
  });
});
