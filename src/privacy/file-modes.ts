import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { LISTEN_DIR } from '../listen/journal.js';
import { QUARANTINE_FILE, RAW_DIR, warehousePath } from '../raw-contract/index.js';

/** Permission bits of group and others: set on a file or folder, someone besides its owner may read it. */
const GROUP_AND_OTHERS = 0o077;

/** Where `report` renders by default (src/reports/render-reports.ts). */
const REPORTS_DIR = 'reports';

/** One area of what fanlake writes that others than its owner can read. */
export interface LooseArea {
  /** `warehouse`, `raw files`, `quarantine`, ... */
  readonly area: string;
  readonly path: string;
  /** Files and folders of the area readable, writable or listable by group or others. */
  readonly entries: number;
  /** A shell command that makes the area its owner's alone. */
  readonly fix: string;
}

interface AreaSpec {
  readonly area: string;
  readonly path: string;
  /** Which entries belong to the area (relative to the data dir, or to the club folder); the area's path itself always does. */
  readonly holds: (relativePath: string) => boolean;
  readonly fix: string;
}

const shellQuote = (path: string) => `'${path.replaceAll("'", `'\\''`)}'`;

/**
 * The areas of the data dir (and the club folder) whose files or folders group or others can
 * read: the data dir itself, the warehouse, raw runs, quarantine files, the push receiver's
 * journal, reports, the rest of the data dir, the club folder. Symbolic links are not judged
 * (their own mode means nothing); what they point to is, where it is in an area.
 */
export async function looseAreas(dataDir: string, clubDir?: string): Promise<LooseArea[]> {
  const under = (name: string) => (path: string) => path === name || path.startsWith(`${name}${sep}`);
  const isQuarantine = (path: string) => under(RAW_DIR)(path) && path.endsWith(`${sep}${QUARANTINE_FILE}`);
  const warehouse = relative(dataDir, warehousePath(dataDir));
  const specs: AreaSpec[] = [
    { area: 'warehouse', path: warehousePath(dataDir), holds: (path) => path.startsWith(warehouse), fix: `chmod go-rwx ${shellQuote(warehousePath(dataDir))}*` },
    { area: 'raw files', path: join(dataDir, RAW_DIR), holds: (path) => under(RAW_DIR)(path) && !isQuarantine(path), fix: `chmod -R go-rwx ${shellQuote(join(dataDir, RAW_DIR))}` },
    { area: 'quarantine', path: join(dataDir, RAW_DIR), holds: isQuarantine, fix: `find ${shellQuote(join(dataDir, RAW_DIR))} -name ${QUARANTINE_FILE} -exec chmod go-rwx {} +` },
    { area: 'journal', path: join(dataDir, LISTEN_DIR), holds: under(LISTEN_DIR), fix: `chmod -R go-rwx ${shellQuote(join(dataDir, LISTEN_DIR))}` },
    { area: 'reports', path: join(dataDir, REPORTS_DIR), holds: under(REPORTS_DIR), fix: `chmod -R go-rwx ${shellQuote(join(dataDir, REPORTS_DIR))}` },
  ];
  const counts = new Map<string, number>();
  let rest = 0;
  let dataDirItself = 0;
  for (const { path, stats } of await walk(dataDir)) {
    if (!isLoose(stats)) continue;
    const relativePath = relative(dataDir, path);
    if (relativePath === '') {
      dataDirItself += 1;
      continue;
    }
    const spec = specs.find((candidate) => candidate.holds(relativePath));
    if (spec) counts.set(spec.area, (counts.get(spec.area) ?? 0) + 1);
    else rest += 1;
  }
  const found: LooseArea[] = [];
  if (dataDirItself > 0) found.push({ area: 'data dir', path: dataDir, entries: 1, fix: `chmod go-rwx ${shellQuote(dataDir)}` });
  for (const spec of specs) {
    const entries = counts.get(spec.area) ?? 0;
    if (entries > 0) found.push({ area: spec.area, path: spec.path, entries, fix: spec.fix });
  }
  if (rest > 0) found.push({ area: 'run records and state', path: dataDir, entries: rest, fix: `chmod -R go-rwx ${shellQuote(dataDir)}` });
  if (clubDir !== undefined) {
    const club = (await walk(clubDir)).filter(({ stats }) => isLoose(stats)).length;
    if (club > 0) found.push({ area: 'club folder', path: clubDir, entries: club, fix: `chmod -R go-rwx ${shellQuote(clubDir)}` });
  }
  return found;
}

function isLoose(stats: Stats): boolean {
  return !stats.isSymbolicLink() && (stats.mode & GROUP_AND_OTHERS) !== 0;
}

/** The folder and everything below it, with each entry's own stats; nothing when it does not exist. */
async function walk(root: string): Promise<{ path: string; stats: Stats }[]> {
  let rootStats: Stats;
  try {
    rootStats = await lstat(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const found = [{ path: root, stats: rootStats }];
  if (!rootStats.isDirectory()) return found;
  let entries: Dirent[];
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (error) {
    // A folder its owner cannot list is no folder others can read through fanlake's doing.
    if ((error as NodeJS.ErrnoException).code === 'EACCES') return found;
    throw error;
  }
  for (const entry of entries) found.push(...(await walk(join(root, entry.name))));
  return found;
}
