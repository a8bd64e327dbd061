import type { Argv } from 'yargs';
import { ZodError } from 'zod';
import { UsageError } from '../../core/errors.js';
import { CLUB_PROFILE_NAMES, type ClubProfileName } from '../../simulator/clubs/index.js';
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
  'members-variant': 'zero-based' | 'one-based';
  'max-range-days': number;
  'disable-module': string[];
  replay: boolean;
}

export const simulateCommand: CommandModule<SimulateArgs> = {
  command: 'simulate',
  describe: 'Serve a faithful local simulation of both APIs (deterministic data, faults, ground truth)',
  builder: (yargs: Argv) =>
    yargs
      .example('$0 simulate --scale 0.5', 'a small club on port 8787; prints the environment to export')
      .example('$0 simulate --port 0 --faults 0.1 --mutate 0.01 --admin', 'a hostile API for tests: failures, records changing while paged, ground truth')
      .example('$0 simulate --seed 7 --now 2026-06-01T00:00:00Z', 'byte-identical data for a seed')
      .example('$0 simulate --club-profile nordvik', 'another club\'s codes and conventions: test a club folder against them')
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'Interface to listen on' })
      .option('port', { type: 'number', default: 8787, describe: 'Port; 0 takes any free one' })
      .option('seed', { type: 'number', default: 1, describe: 'Seed of the generated data' })
      .option('scale', { type: 'number', default: 1, describe: 'Size: 1 ≈ 20k users, 100k tickets; 10 ≈ 1M tickets' })
      .option('latency-ms', { type: 'number', default: 0, describe: 'Latency added to every API response' })
      .option('faults', { type: 'number', default: 0, describe: 'Share of requests that fail (500/502/503/429, resets, stalls)' })
      .option('mutate', { type: 'number', default: 0, describe: 'After each page, this share of its item count gets a new last_update' })
      .option('stall-ms', { type: 'number', default: 35_000, describe: 'How long a stalled request hangs' })
      .option('retry-after', { type: 'number', default: 1, describe: 'Retry-After seconds sent with 429 and 503' })
      .option('now', { type: 'string', describe: 'Pin the data clock (ISO date or epoch ms) for byte-identical data' })
      .option('noise', { type: 'boolean', default: false, describe: 'Real-world noise in names, e-mails, phones and households (rates in docs/decisions.md)' })
      .option('club-profile', {
        choices: CLUB_PROFILE_NAMES,
        default: 'fanlake' as const,
        describe: 'Whose codes, texts and conventions the data follows: fanlake (what the default mapping in defaults/club/ was written for) or nordvik (other consent ids and texts, season tickets sold with a price on a real match, an order status the defaults do not know, other channel spellings, ApiApp people on another network)',
      })
      .option('admin', { type: 'boolean', default: false, describe: 'Serve /__admin/... (ground truth, record changes, fault control)' })
      .option('members-variant', { choices: ['zero-based', 'one-based'] as const, default: 'one-based' as const, describe: 'Documented variant of /api/members' })
      .option('max-range-days', { type: 'number', default: 1095, describe: 'The server\'s "3 years" date-range cap' })
      .option('replay', { type: 'boolean', default: false, describe: 'Answer from bytes rendered once, for benchmarks (no faults, mutate or admin)' })
      .option('disable-module', { type: 'string', array: true, choices: ENGAGEMENT_MODULES, default: [] as string[], describe: 'Engagement modules the organization lacks' }) as unknown as Argv<SimulateArgs>,

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
        clubProfile: args['club-profile'],
        membersVariant: args['members-variant'],
        maxRangeDays: args['max-range-days'],
        disabledModules: args['disable-module'] as never,
        replay: args.replay,
        ticketingToken: config['ticketing.token'],
        engagementApiKey: config['engagement.apiKey'],
        orgId: config['engagement.orgId'],
      });
    } catch (error) {
      if (error instanceof ZodError) throw new UsageError(`simulate: ${error.issues.map((i) => `--${String(i.path[0])} ${i.message}`).join('; ')}`);
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
