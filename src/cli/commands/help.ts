import type { Argv } from 'yargs';
import { type SettingDoc, settingDocs } from '../../config/settings-docs.js';
import type { CommandModule } from '../command.js';
import { out } from '../output.js';

const TOPICS = ['settings'] as const;

interface HelpArgs {
  topic: (typeof TOPICS)[number];
}

const WIDTH = 88;
const INDENT = '    ';

/** `fanlake help settings`. `fanlake help COMMAND` is rewritten to `COMMAND --help` before it gets here (main.ts). */
export const helpCommand: CommandModule<HelpArgs> = {
  command: 'help <topic>',
  describe: 'Explain every setting: its variable, config key, flag and default (help settings)',
  configless: true,
  builder: (yargs: Argv) =>
    yargs
      .example('$0 help settings', 'every setting, with its variable, config key, flag and default')
      .example('$0 help extract', 'the same as fanlake extract --help')
      .positional('topic', { choices: TOPICS, describe: 'What to explain' }) as unknown as Argv<HelpArgs>,

  async run() {
    out.result(settingsHelp(settingDocs()));
    return 0;
  },
};

/** Every setting: its variable, then where else it is set and its default, then what it means. */
export function settingsHelp(docs: readonly SettingDoc[]): string {
  const intro = [
    'Every setting has an environment variable, a key in fanlake.config.json (or --config PATH)',
    'and, except secrets, a flag every command takes. Flags win over the environment, the',
    'environment over a .env file, .env over the config file. Secrets come only from the',
    'environment or .env, and are masked in everything fanlake prints or writes.',
  ];
  const entries = docs.map((doc) => {
    const where = [`config ${doc.key}`, doc.flag === undefined ? 'no flag (a secret: environment or .env only)' : `flag ${doc.flag}`, `default ${doc.default}`].join(' · ');
    return [doc.env, ...[...wrap(where, WIDTH - INDENT.length), ...wrap(doc.description, WIDTH - INDENT.length)].map((line) => INDENT + line)].join('\n');
  });
  const outro = 'Report schedules are set in the config file only: see fanlake schedule --help.';
  return [intro.join('\n'), ...entries, outro].join('\n\n');
}

/** Words into lines of at most `width` characters (a longer word gets a line of its own). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
