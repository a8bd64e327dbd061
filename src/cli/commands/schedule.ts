import type { Argv } from 'yargs';
import { UsageError } from '../../core/errors.js';
import type { Config } from '../../config/load-config.js';
import { delivererFor, noticeDelivererFor } from '../../delivery/deliver.js';
import { receiverNotices } from '../../delivery/receiver-notices.js';
import { markReceiverFailing } from '../../listen/receiver-state.js';
import { receiverSettings, runReceiver } from '../../listen/run-receiver.js';
import { superviseReceiver } from '../../schedule/receiver-supervisor.js';
import { releaseIfOursSync } from '../../core/writer-lock.js';
import { checkReportDefinitions } from '../../pipeline/steps/report.js';
import { runScheduledJob } from '../../schedule/run-job.js';
import { readSchedules, type Schedule } from '../../schedule/schedule-config.js';
import { appendLogEntry, type LogEntry, type DeliveryRecord, type LogRetention, readLog, type ReceiverLogEntry, scheduleLogPath } from '../../schedule/schedule-log.js';
import { runScheduler } from '../../schedule/scheduler.js';
import { nextSlots, wallTime } from '../../schedule/slots.js';
import type { CommandModule } from '../command.js';
import { out, table } from '../output.js';
import { printReceiverEvent } from './listen.js';

interface ScheduleArgs {
  list: boolean;
  from?: string;
}

export interface ScheduleCommandDefaults {
  modelsDir?: string;
}

/** How a schedule looks where it is set: the config file has the only copy of schedules. */
const SCHEDULE_EXAMPLE = `Schedules are set in fanlake.config.json only (no variables or flags), e.g.:

  "schedules": [
    { "name": "nightly", "cron": "0 6 * * *", "timeZone": "Europe/Oslo",
      "deliver": { "email": true } },
    { "name": "mondays", "cron": "0 8 * * 1", "timeZone": "Europe/Oslo",
      "job": "reports", "reports": ["match-day"] }
  ]

cron: minute hour day-of-month month day-of-week (croner; 6 fields: seconds
first), read in timeZone (IANA; default UTC): "0 6 * * *" is 06:00 Oslo time
every day, "0 8 * * 1" 08:00 on Mondays. job: run (default) or reports. More
keys (sources, params, strict, deliver, personalData): docs/interface.md.

With FANLAKE_LISTEN_SECRET set, the push receiver (fanlake listen --help) runs
in this process too: restarted with backoff when it fails while the jobs go on,
one alert per outage on the schedules' channels (docs/operations.md).`;

/**
 * `fanlake schedule`. Not a `writes` command: it runs for days, so each job takes the writer
 * lock itself, with a bounded wait. With a listen secret it keeps the push receiver running
 * beside the jobs; the receiver keeps its own state file and takes no lock.
 */
export function createScheduleCommand(defaults: ScheduleCommandDefaults = {}): CommandModule<ScheduleArgs> {
  return {
    command: 'schedule',
    describe: 'Run the schedules of the config file, and the push receiver when FANLAKE_LISTEN_SECRET is set, until SIGTERM or SIGINT (--list: their next slots)',
    epilogue: SCHEDULE_EXAMPLE,
    builder: (yargs: Argv) =>
      yargs
        .example('$0 schedule', 'run every configured schedule; one log line per job')
        .example('$0 schedule --list', 'each schedule\'s next three slots in its time zone')
        .option('list', { type: 'boolean', default: false, describe: 'Print each schedule\'s next three slots and exit' })
        .option('from', { type: 'string', describe: 'With --list: slots after this instant (ISO 8601) instead of now' }) as unknown as Argv<ScheduleArgs>,

    async run(args, loaded) {
      const { config } = loaded;
      const schedules = readSchedules(loaded);
      if (schedules.length === 0) throw new UsageError('no schedules configured: add "schedules" to fanlake.config.json (see fanlake schedule --help)');
      if (args.list) return list(schedules, args.from);
      if (args.from) throw new UsageError('--from only goes with --list');
      const deliverers = new Map(schedules.map((schedule) => [schedule.name, delivererFor(schedule, config)]));
      // The receiver's configuration is checked now: a mistake there is exit 2, not an outage.
      const withReceiver = config['listen.secret'] !== undefined;
      if (withReceiver) receiverSettings(config);
      const logRetention = { days: config['schedule.logRetentionDays'] };
      for (const schedule of schedules) {
        await checkReportDefinitions({ config, modelsDir: defaults.modelsDir }, schedule.reports).catch((error: unknown) => {
          throw error instanceof UsageError ? new UsageError(`schedule ${schedule.name}: ${error.message}`, { schedule: schedule.name }) : error;
        });
      }

      const stop = new AbortController();
      let current: { schedule: string; slot: Date; start: Date } | undefined;
      let signals = 0;
      const onSignal = (signal: NodeJS.Signals) => {
        signals += 1;
        if (signals === 1) {
          out.info(`${signal}: stopping${current ? ` once ${current.schedule}'s current step is done (again to abort it)` : ''}`);
          stop.abort();
          return;
        }
        // The stages keep data consistent when cut off (one load transaction, manifests last): only the lock needs tidying.
        if (current) appendLogEntry(config.dataDir, { schedule: current.schedule, slot: current.slot.toISOString(), start: current.start.toISOString(), end: new Date().toISOString(), outcome: 'aborted', error: `aborted by a second ${signal}` });
        out.info(`${signal} again: aborting`);
        // Synchronously, and also a lock still being taken: a signal handler cannot wait.
        releaseIfOursSync(config.dataDir);
        process.exit(1);
      };
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);

      const history = await readLog(config.dataDir);
      // Nothing is awaited from this line until the scheduler has read the time it starts at and sleeps: a test may move the clock once it sees the line.
      out.info(`scheduler started: ${schedules.map((s) => `${s.name} (next ${wallTime(nextSlots(s, new Date(), 1)[0]!, s.timeZone)})`).join(', ')}; log in ${scheduleLogPath(config.dataDir)}`);
      const receiver = withReceiver ? keepReceiverRunning(config, schedules, stop.signal, logRetention) : undefined;
      try {
        await runScheduler({
          schedules,
          history,
          stop: stop.signal,
          runJob: async (schedule, slot, slots) => {
            current = { schedule: schedule.name, slot, start: new Date() };
            out.info(`${schedule.name}: slot ${wallTime(slot, schedule.timeZone)}${slots > 1 ? ` (serving ${slots} slots at once)` : ''} starts`);
            try {
              return await runScheduledJob(schedule, slot, slots, {
                config,
                modelsDir: defaults.modelsDir,
                stop: stop.signal,
                deliver: deliverers.get(schedule.name)!,
                onNotice: (message) => out.info(`${schedule.name}: ${message}`),
                onStep: (step) => out.info(`${schedule.name}: ${step.step} ${step.status}${step.reason ? ` (${step.reason})` : ''}`),
              });
            } finally {
              current = undefined;
            }
          },
          onEntry: (entry) => {
            appendLogEntry(config.dataDir, entry, logRetention);
            out.result(humanLine(entry, schedules.find((s) => s.name === entry.schedule)!));
          },
        });
      } finally {
        stop.abort();
        await receiver;
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
      }
      out.info('scheduler stopped');
      return 0;
    },
  };
}

export const scheduleCommand = createScheduleCommand();

/**
 * Runs the push receiver beside the jobs until `stop`: restarted with backoff when it fails,
 * one alert per outage and a notice when it is back, on the schedules' channels, each
 * logged in the schedule log. Resolves once the receiver stopped and the notices went out.
 */
async function keepReceiverRunning(config: Config, schedules: readonly Schedule[], stop: AbortSignal, logRetention: LogRetention): Promise<void> {
  const notices = receiverNotices({
    dataDir: config.dataDir,
    send: noticeDelivererFor(schedules, config),
    signal: stop,
    log: (entry) => {
      appendLogEntry(config.dataDir, entry, logRetention);
      out.result(receiverLine(entry));
    },
  });
  await superviseReceiver({
    stop,
    restartMs: config['listen.restartSeconds'] * 1000,
    run: (attemptStop, onReady) => runReceiver({ config, stop: attemptStop, onReady, onEvent: printReceiverEvent }),
    onUp: ({ listeningOn, subscriptionId, outage }) => {
      out.info(`push receiver listening on ${listeningOn} (subscription ${subscriptionId} enabled and validated)`);
      if (outage) notices.up(outage, new Date());
    },
    onFailure: async ({ error, attempt, waitMs, outage }) => {
      out.warn(`push receiver failed (${error}); restart ${attempt} in ${(waitMs / 1000).toFixed(1)} s; jobs go on, their runs take full engagement snapshots meanwhile`);
      await markReceiverFailing(config.dataDir, outage.since, outage.error);
    },
    onDown: (outage) => notices.down(outage),
  });
  await notices.settled();
}

/** `2026-11-23T06:00:04Z push receiver down: cannot bind …; webhook sent` */
function receiverLine(entry: ReceiverLogEntry): string {
  const parts = [`${entry.at.replace(/\.\d{3}Z$/, 'Z')} push receiver ${entry.receiver}${entry.receiver === 'down' ? `: ${entry.error}` : ` (down since ${entry.since})`}`];
  for (const d of entry.deliveries ?? []) parts.push(deliveryText(d));
  return parts.join('; ');
}

/** `webhook failed after 3 attempts (webhook answered HTTP 500)` */
function deliveryText(d: DeliveryRecord): string {
  return `${d.channel} ${d.status}${d.attempts > 1 ? ` after ${d.attempts} attempts` : ''}${d.error ? ` (${d.error})` : ''}`;
}

function list(schedules: readonly Schedule[], from: string | undefined): 0 {
  const after = from === undefined ? new Date() : new Date(from);
  if (Number.isNaN(after.getTime())) throw new UsageError(`--from ${from}: not an ISO 8601 instant`);
  out.result(
    table(
      ['schedule', 'cron', 'time zone', 'job', 'next slots'],
      schedules.map((s) => [s.name, s.cron, s.timeZone, s.job === 'reports' ? `reports ${s.reports?.join(' ') ?? '(all)'}` : 'run', nextSlots(s, after, 3).map((slot) => wallTime(slot, s.timeZone)).join(', ')]),
    ),
  );
  return 0;
}

/** `2026-11-23T06:00:04Z nightly slot 2026-11-23 07:00 CET: ok in 12.3 s, run …; email sent` */
export function humanLine(entry: LogEntry, schedule: Schedule): string {
  const seconds = ((Date.parse(entry.end) - Date.parse(entry.start)) / 1000).toFixed(1);
  const parts = [`${entry.end.replace(/\.\d{3}Z$/, 'Z')} ${entry.schedule} slot ${wallTime(new Date(entry.slot), schedule.timeZone)}: ${entry.outcome}`];
  if (entry.outcome !== 'missed') parts[0] += ` in ${seconds} s`;
  if (entry.slots) parts.push(`${entry.slots} slots served at once`);
  if (entry.runId) parts.push(`run ${entry.runId}`);
  if (entry.error) parts.push(entry.error);
  for (const d of entry.deliveries ?? []) parts.push(deliveryText(d));
  if (entry.pruned) parts.push(`removed ${entry.pruned.runs} old raw runs (${(entry.pruned.bytes / 1e6).toFixed(1)} MB)`);
  return parts.join('; ');
}
