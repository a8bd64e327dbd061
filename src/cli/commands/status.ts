import { existsSync } from 'node:fs';
import type { Argv } from 'yargs';
import { queryRows } from '../../core/duckdb.js';
import { SOURCES } from '../../extract/run-extraction.js';
import { SourceState } from '../../extract/state.js';
import { readSchedules } from '../../schedule/schedule-config.js';
import { lastEntries, readLog } from '../../schedule/schedule-log.js';
import { nextSlots, wallTime } from '../../schedule/slots.js';
import { EXTRACTION_STATUSES, listExtractionSummaries, readExtractionSummary, warehousePath } from '../../raw-contract/index.js';
import { findBookkeeping } from '../../warehouse/bookkeeping.js';
import { withWarehouseReader } from '../../warehouse/warehouse.js';
import { identityStateLines } from '../../models/identity-model/state-report.js';
import { SnapshotState } from '../../extract/snapshot-state.js';
import { type ChangesSince, journalSize, readChangesSince, readConsumedMark } from '../../listen/journal.js';
import { nextScheduledSnapshot } from '../../extract/refresh-plan.js';
import type { Config } from '../../config/load-config.js';
import { diskUsage, formatBytes } from '../disk-usage.js';
import { coverageGap, readReceiverState } from '../../listen/receiver-state.js';
import type { CommandModule } from '../command.js';
import { out, table } from '../output.js';
import { duckdbBudget } from '../../config/duckdb-budget.js';

export const statusCommand: CommandModule<object> = {
  command: 'status',
  describe: 'What was extracted and loaded when, how fresh each table is, the push receiver, and the disk each area uses',
  builder: (yargs: Argv) => yargs,

  async run(_args, loaded) {
    const { config } = loaded;
    const dataDir = config.dataDir;
    const extracted: (string | number)[][] = [];
    for (const source of SOURCES) {
      const state = await SourceState.open(dataDir, source);
      for (const [resource, s] of state.entries()) {
        extracted.push([`${source}.${resource}`, s.updatedAt, s.completeThrough, s.highWaterMark ?? '', s.lastRunId]);
      }
    }
    out.result(extracted.length ? table(['resource', 'extracted at', 'complete through', 'newest record', 'last run'], extracted) : 'nothing extracted yet');

    const newest = (await listExtractionSummaries(dataDir)).at(-1);
    if (newest !== undefined) {
      const last = await readExtractionSummary(newest.path);
      const counts = EXTRACTION_STATUSES.map((status) => `${last.results.filter((r) => r.status === status).length} ${status}`);
      out.result(`\nlast extraction ${last.runId} finished ${last.finishedAt}: ${counts.join(', ')}`);
    }

    await printReceiver(config);
    const areas = await diskUsage(config);
    out.result(`\n${table(['disk', 'size', 'kept'], areas.map((a) => [a.area, formatBytes(a.bytes), a.kept]))}`);
    await printSchedules(loaded, dataDir);

    if (!existsSync(warehousePath(dataDir))) {
      out.result('\nno warehouse yet (run fanlake load)');
      return 0;
    }
    const { loads, identity } = await withWarehouseReader(
      dataDir,
      async (connection) => {
        const identity = await identityStateLines(connection);
        const ledger = await findBookkeeping(connection, 'load_ledger');
        if (ledger === undefined) return { loads: [], identity };
        const loads = await queryRows(
          connection,
          `select source || '_' || resource as "table", count(*) as runs, sum(rows) as rows_loaded, max(loaded_at)::varchar as last_loaded, max(extracted_at)::varchar as newest_extract, (now() - max(extracted_at))::varchar as age
           from ${ledger} group by all order by 1`,
        );
        return { loads, identity };
      },
      duckdbBudget(config),
    );
    out.result(`\nwarehouse ${warehousePath(dataDir)}`);
    out.result(table(['raw table', 'runs', 'rows loaded', 'last loaded', 'newest extract', 'age'], loads.map((r) => [String(r.table), Number(r.runs), Number(r.rows_loaded), String(r.last_loaded), String(r.newest_extract), String(r.age)])));
    if (identity.length > 0) out.result(`\n${identity.join('\n')}`);
    return 0;
  },
};

/**
 * The push receiver, from its own state file (no API call): up or why not, the changes
 * waiting to be read, where it listens, since when it covers every change, its last
 * delivery, since when it fails, the journal, and when the next full snapshot is due.
 */
async function printReceiver(config: Config): Promise<void> {
  const { dataDir } = config;
  const receiver = await readReceiverState(dataDir);
  if (!receiver) return;
  const lastFull = (await SnapshotState.open(dataDir, 'engagement')).lastFull('customer_profiles');
  const now = new Date();
  const gap = coverageGap(receiver, lastFull ?? now, now);
  const consumed = await readConsumedMark(dataDir);
  const waiting = await readChangesSince(dataDir, consumed.position);
  const state =
    gap !== undefined ? `${gap}: the next run takes a full engagement snapshot`
    : lastFull === undefined ? `up since ${receiver.coveredSince}; no full engagement snapshot yet, the next run takes one`
    : `up, every change recorded since ${receiver.coveredSince}`;
  out.result(`\npush receiver (subscription ${receiver.subscriptionId ?? 'none yet'}): ${state}`);
  out.result(`  ${waiting.ids.length} changed customer profiles recorded and not loaded yet; last full snapshot ${lastFull?.toISOString() ?? 'none yet'}`);
  const scheduled = lastFull && nextScheduledSnapshot(config['engagement.snapshotCron'], lastFull);
  const nextFull =
    lastFull === undefined ? 'the next run (none taken yet)'
    : gap !== undefined ? `the next run (${gap})`
    : scheduled === undefined ? 'none scheduled'
    : scheduled.getTime() <= now.getTime() ? `the next run (the slot at ${scheduled.toISOString()} is due)`
    : `${scheduled.toISOString()} (FANLAKE_ENGAGEMENT_SNAPSHOT_CRON ${config['engagement.snapshotCron']}, UTC)`;
  const down = receiver.stoppedAt !== undefined || receiver.failingSince !== undefined;
  const rows: [string, string][] = [
    ['listening on', down || !receiver.listeningOn ? 'not listening' : `${receiver.listeningOn}${receiver.publicUrl !== receiver.listeningOn ? ` (public ${receiver.publicUrl})` : ''}`],
    ['covered since', receiver.coveredSince && !down ? receiver.coveredSince : 'not covering'],
    ['last delivery', receiver.lastDeliveryAt ?? 'none yet'],
    ...(receiver.failingSince ? [['failing since', `${receiver.failingSince} (${receiver.failure ?? 'unknown cause'})`] as [string, string]] : []),
    ['heartbeat', receiver.heartbeatAt],
    ['journal', await journalState(dataDir, waiting, consumed.damaged)],
    ['next full snapshot', nextFull],
  ];
  out.result(rows.map(([label, value]) => `  ${label.padEnd(19)}${value}`).join('\n'));
}

/** The change journal's size, and what in it the next run cannot read (which makes it take a full snapshot). */
async function journalState(dataDir: string, waiting: ChangesSince, consumedDamaged: boolean): Promise<string> {
  const size = await journalSize(dataDir);
  const troubles = [
    ...(waiting.unreadable > 0 ? [`${waiting.unreadable} unreadable line${waiting.unreadable === 1 ? '' : 's'} skipped`] : []),
    ...waiting.dropped.map((drop) => `${drop.segments} unread segment${drop.segments === 1 ? '' : 's'} dropped at ${drop.at} (over listen.journalMaxBytes)`),
    ...(consumedDamaged ? ['listen/consumed.json damaged'] : []),
  ];
  const state = troubles.length > 0 ? `${troubles.join(', ')}: the next run takes a full snapshot` : 'no unreadable lines';
  return `${formatBytes(size.bytes)} in ${size.segments} segment${size.segments === 1 ? '' : 's'}; ${state}`;
}

/** Each schedule's last outcome (with failed deliveries) and next slot. */
async function printSchedules(loaded: Parameters<typeof readSchedules>[0], dataDir: string): Promise<void> {
  const schedules = readSchedules(loaded);
  if (schedules.length === 0) return;
  const last = lastEntries(await readLog(dataDir));
  out.result(
    '\n' +
      table(
        ['schedule', 'last slot', 'outcome', 'deliveries', 'next slot'],
        schedules.map((schedule) => {
          const entry = last.get(schedule.name);
          const deliveries = (entry?.deliveries ?? []).map((d) => `${d.channel} ${d.status}${d.error ? ` (${d.error})` : ''}`).join(', ');
          return [
            schedule.name,
            entry ? wallTime(new Date(entry.slot), schedule.timeZone) : 'never ran',
            entry ? `${entry.outcome}${entry.error && entry.outcome !== 'ok' ? `: ${entry.error.length > 60 ? `${entry.error.slice(0, 59)}…` : entry.error}` : ''}` : '',
            deliveries,
            wallTime(nextSlots(schedule, new Date(), 1)[0]!, schedule.timeZone),
          ];
        }),
      ),
  );
}
