import { join } from 'node:path';
import type { Config } from '../config/load-config.js';
import { folderBytes } from '../core/folder-bytes.js';
import { journalDir } from '../listen/journal.js';
import { QUARANTINE_FILE, rawRoot, warehousePath } from '../raw-contract/index.js';
import { scheduleDir } from '../schedule/schedule-log.js';

/** One area of the data dir, what it holds on disk and what bounds it. */
export interface DiskArea {
  area: string;
  path: string;
  bytes: number;
  kept: string;
}

/**
 * What each area of `$FANLAKE_DATA_DIR` uses, for `status`: raw runs (without their
 * quarantine files, counted apart), the warehouse file with its write-ahead log, the change
 * journal, the schedule log and the rendered reports.
 */
export async function diskUsage(config: Config): Promise<DiskArea[]> {
  const { dataDir } = config;
  const raw = await folderBytes(rawRoot(dataDir), (name) => name === QUARANTINE_FILE);
  const warehouse = warehousePath(dataDir);
  const rawDays = config['raw.retentionDays'];
  const logDays = config['schedule.logRetentionDays'];
  return [
    { area: 'raw runs', path: rawRoot(dataDir), bytes: raw.total - raw.counted, kept: rawDays > 0 ? `loaded runs older than ${rawDays} days are removed after scheduled jobs` : 'everything (FANLAKE_RAW_RETENTION_DAYS is 0)' },
    { area: 'quarantine', path: rawRoot(dataDir), bytes: raw.counted, kept: 'with the raw run it belongs to' },
    { area: 'warehouse', path: warehouse, bytes: (await folderBytes(warehouse)).total + (await folderBytes(`${warehouse}.wal`)).total, kept: `check results ${config['check.retentionDays'] > 0 ? `${config['check.retentionDays']} days` : 'forever'}` },
    { area: 'change journal', path: journalDir(dataDir), bytes: (await folderBytes(journalDir(dataDir))).total, kept: 'segments go once their changes are loaded' },
    { area: 'schedule log', path: scheduleDir(dataDir), bytes: (await folderBytes(scheduleDir(dataDir))).total, kept: logDays > 0 ? `rotated weekly, ${logDays} days` : 'everything (FANLAKE_SCHEDULE_LOG_RETENTION_DAYS is 0)' },
    { area: 'reports', path: join(dataDir, 'reports'), bytes: (await folderBytes(join(dataDir, 'reports'))).total, kept: `${config['report.keep']} renderings per report` },
  ];
}

/** `12.3 MB`, `4.0 KB`: a size to read at a glance. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${(bytes / 1e3).toFixed(1)} KB`;
}
