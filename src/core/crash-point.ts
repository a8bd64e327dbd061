/**
 * Named places where a crash matters: a test sets `FANLAKE_TEST_CRASH_AT` to one of them and
 * the process kills itself there with SIGKILL, as a power cut or the OOM killer would, instead
 * of a test guessing when to kill it from outside. `NAME#N` crashes at the Nth pass through
 * the point (the first without `#N`). Test-only: not a setting, never read from a config file
 * or `.env`, and nothing a club sets.
 */
export const CRASH_POINTS = [
  /** A page of a resource written to the spool, its run not yet complete. */
  'extract:page-spooled',
  /** A table merged inside the load's transaction, before the commit. */
  'load:table-merged',
  /** The load committed, the change journal not yet marked consumed. */
  'load:committed',
  /** A model's table written, its build not yet recorded. */
  'build:model-written',
] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

export const CRASH_AT_ENV = 'FANLAKE_TEST_CRASH_AT';

const passes = new Map<CrashPoint, number>();

/** Kills the process on the spot when `FANLAKE_TEST_CRASH_AT` names this point (and pass). */
export function crashPoint(name: CrashPoint): void {
  const wanted = process.env[CRASH_AT_ENV];
  if (!wanted) return;
  const [point, nth = '1'] = wanted.split('#');
  if (point !== name) return;
  const pass = (passes.get(name) ?? 0) + 1;
  passes.set(name, pass);
  if (pass === Number(nth)) process.kill(process.pid, 'SIGKILL');
}
