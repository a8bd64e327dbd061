import type { Argv } from 'yargs';
import { ZodError } from 'zod';
import { UsageError } from '../../core/errors.js';
import type { ClubProfileName } from '../../simulator/clubs/index.js';
import { ENGAGEMENT_MODULES } from '../../simulator/options.js';
import { Simulator } from '../../simulator/simulator.js';
import type { CommandModule } from '../command.js';
import { out } from '../output.js';

interface SimulateArgs {
  host: string;
  port: number;
  seed: number;
  scale: number;
  noise: boolean;
  'club-profile': ClubProfileName;
  'latency-ms': number;
  faults: number;
  mutate: number;
  'stall-ms': number;
  'retry-after': number;
  now?: string;
  admin: boolean;
  /** Checked by the simulator's options, which name the variants. */
  'members-variant': string;
  'max-range-days': number;
  'disable-module': string[];
  replay: boolean;
}

export const simulateCommand: CommandModule<SimulateArgs> = {
  command: 'simulate',
  describe: 'Serve both APIs locally: deterministic data, faults, ground truth',
  // One line per option, so that all of them fit the first 24 lines of the help.
  builder: (yargs: Argv) =>
    yargs
      .example('$0 simulate --scale 0.5', 'a small club; prints the environment to use')
      .example('$0 simulate --faults 0.1 --admin', 'a hostile API, with ground truth')
      .example('$0 simulate --now 2026-06-01', 'the same bytes on every start')
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'Interface to listen on' })
      .option('port', { type: 'number', default: 8787, describe: 'Port; 0 takes any free one' })
      .option('seed', { type: 'number', default: 1, describe: 'Seed of the generated data' })
      .option('scale', { type: 'number', default: 1, describe: 'Size: 1 ≈ 100k tickets; at most 80' })
      .option('latency-ms', { type: 'number', default: 0, describe: 'Added to every API response' })
      .option('faults', { type: 'number', default: 0, describe: 'Share of requests that fail' })
      .option('mutate', { type: 'number', default: 0, describe: 'Share of a page re-dated after it' })
      .option('stall-ms', { type: 'number', default: 35_000, describe: 'How long a stall hangs' })
      .option('retry-after', { type: 'number', default: 1, describe: 'Retry-After of 429s and 503s' })
      .option('now', { type: 'string', describe: 'Data clock: ISO date or epoch ms' })
      .option('noise', { type: 'boolean', describe: 'Real-world noise in names and contacts' })
      .option('club-profile', { type: 'string', default: 'fanlake', describe: 'Whose codes and conventions: fanlake or nordvik' })
      .option('admin', { type: 'boolean', describe: 'Serve /__admin/: truth, changes, faults' })
      .option('members-variant', { type: 'string', default: 'one-based', describe: 'zero-based or one-based' })
      .option('max-range-days', { type: 'number', default: 1095, describe: 'The "3 years" date-range cap' })
      .option('replay', { type: 'boolean', describe: 'Serve bytes rendered once, for benchmarks' })
      .option('disable-module', { type: 'string', array: true, choices: ENGAGEMENT_MODULES, describe: 'Modules the organization lacks' }) as unknown as Argv<SimulateArgs>,

  async run(args, { config }) {
    const started = performance.now();
    let simulator: Simulator;
    try {
      simulator = await Simulator.start({
        host: args.host,
        port: args.port,
        seed: args.seed,
        scale: args.scale,
        latencyMs: args['latency-ms'],
        faults: args.faults,
        mutate: args.mutate,
        stallMs: args['stall-ms'],
        retryAfterSeconds: args['retry-after'],
        now: args.now,
        admin: args.admin,
        noise: args.noise,
        clubProfile: args['club-profile'] as never,
        membersVariant: args['members-variant'] as never,
        maxRangeDays: args['max-range-days'],
        disabledModules: args['disable-module'] as never,
        replay: args.replay,
        ticketingToken: config['ticketing.token'],
        engagementApiKey: config['engagement.apiKey'],
        orgId: config['engagement.orgId'],
      });
    } catch (error) {
      if (error instanceof ZodError) throw new UsageError(`simulate: ${error.issues.map((i) => `--${flagOf(String(i.path[0]))} ${i.message}`).join('; ')}`);
      throw error;
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    out.info(`simulator ready in ${seconds}s: club ${args['club-profile']}, seed ${args.seed}, scale ${args.scale}, data time ${new Date(simulator.clock.startMs).toISOString()}`);
    out.info('point fanlake at it with:');
    for (const [name, value] of Object.entries(simulator.env)) {
      const fromEnv = process.env[name] !== undefined && /TOKEN|KEY/.test(name);
      out.result(`  export ${name}=${fromEnv ? `"$${name}"   # as already set` : value}`);
    }
    out.result(`listening on ${simulator.url}`);
    await new Promise<void>((resolve) => {
      process.once('SIGTERM', resolve);
      process.once('SIGINT', resolve);
    });
    await simulator.close();
    out.info('simulator stopped');
    return 0;
  },
};

/** The flag of a simulator option, as the user typed it: `membersVariant` → `members-variant`. */
function flagOf(option: string): string {
  const renamed: Record<string, string> = { retryAfterSeconds: 'retry-after', disabledModules: 'disable-module' };
  return renamed[option] ?? option.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}
