import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, type CliResult } from '../helpers/cli.js';
import { spawn } from 'node:child_process';

/** The ticketing side's files under `sql/`: everything else (engagement, identity) is left out. */
export const TICKETING_MARTS = [
  'fct_tickets', 'dim_match', 'fct_merchandise_lines', 'fct_orders', 'match_summary', 'member_utilization',
  'member_category_utilization', 'match_attendance', 'fct_season_tickets', 'revenue_monthly', 'ticket_type_sales',
] as const;
/** Intermediate models that read ticketing marts alone. */
const TICKETING_INTERMEDIATES = ['int_ticket_kinds', 'int_seasons', 'int_revenue_lines', 'int_club_order_status_groups', 'int_club_order_type_groups'];
const TICKETING_SEEDS = ['ticketing_ticket_statuses', 'ticketing_order_types', 'metric_settings'];

/** Custom tests that read ticketing models alone, beside the `ticketing_*` ones. */
const TICKETING_TESTS = ['season_ticket_ids_name_one_season_ticket.sql', 'books_revenue_by_product_line.sql'];

/** `build --select` arguments that build the ticketing models and nothing else. */
export const TICKETING_SELECT = [
  '--select', '+match_summary', '+fct_orders', '+member_category_utilization', '+stg_ticketing__users', '+stg_ticketing__user_permissions',
  '+match_attendance', '+fct_season_tickets', '+revenue_monthly', '+ticket_type_sales', '+int_club_order_type_groups',
];

/**
 * A copy of the package (built `dist/`, `bin/`, `package.json`, linked `node_modules`) whose
 * `sql/` holds only the ticketing models, seeds, tests and sources. `fanlake check` has no
 * `--select`, so this is how its exit code speaks for the ticketing side alone while other
 * models in the tree are unbuilt or half-written.
 */
export function ticketingOnlyPackage(): string {
  const root = mkdtempSync(join(tmpdir(), 'fanlake-ticketing-pkg-'));
  cpSync(join(REPO, 'dist'), join(root, 'dist'), { recursive: true });
  cpSync(join(REPO, 'bin'), join(root, 'bin'), { recursive: true });
  cpSync(join(REPO, 'defaults'), join(root, 'defaults'), { recursive: true });
  cpSync(join(REPO, 'package.json'), join(root, 'package.json'));
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir');

  const from = join(REPO, 'sql');
  const to = join(root, 'sql');
  cpSync(join(from, 'staging', 'ticketing'), join(to, 'staging', 'ticketing'), { recursive: true });
  mkdirSync(join(to, 'marts'), { recursive: true });
  for (const mart of TICKETING_MARTS) cpSync(join(from, 'marts', `${mart}.sql`), join(to, 'marts', `${mart}.sql`));
  mkdirSync(join(to, 'intermediate'), { recursive: true });
  for (const model of TICKETING_INTERMEDIATES) cpSync(join(from, 'intermediate', `${model}.sql`), join(to, 'intermediate', `${model}.sql`));
  mkdirSync(join(to, 'seeds'), { recursive: true });
  for (const seed of TICKETING_SEEDS) cpSync(join(from, 'seeds', `${seed}.csv`), join(to, 'seeds', `${seed}.csv`));
  mkdirSync(join(to, 'tests'), { recursive: true });
  for (const file of readdirSync(join(from, 'tests')).filter((name) => name.startsWith('ticketing_') || TICKETING_TESTS.includes(name))) {
    cpSync(join(from, 'tests', file), join(to, 'tests', file));
  }
  const sources = JSON.parse(readFileSync(join(from, 'sources.json'), 'utf8')) as Record<string, unknown>;
  const ticketingSources = Object.fromEntries(Object.entries(sources).filter(([relation]) => relation.startsWith('raw.ticketing_')));
  writeFileSync(join(to, 'sources.json'), JSON.stringify(ticketingSources, null, 2));
  return root;
}

/** Runs `<packageRoot>/bin/fanlake` like `runCli` runs the repository's. */
export function runPackageCli(packageRoot: string, args: string[], env: Record<string, string>): Promise<CliResult> {
  const child = spawn(process.execPath, [join(packageRoot, 'bin', 'fanlake'), ...args], {
    cwd: mkdtempSync(join(tmpdir(), 'fanlake-cwd-')),
    env: { PATH: process.env.PATH ?? '', TZ: 'UTC', CI: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}
