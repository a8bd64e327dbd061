import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from './cli.js';

/** A clock file that CLI children started with `env` follow (test/helpers/season-clock.mjs), and the test moves. */
export interface ClockFile {
  /** NODE_OPTIONS and FANLAKE_TEST_CLOCK_FILE for a child that follows this clock. */
  readonly env: Record<string, string>;
  /** The clock's time now, as its children read it. */
  now(): number;
  /** Moves the clock to `ms` at once (atomically: a child never reads half a file). */
  set(ms: number): void;
}

/**
 * A clock that starts at `startMs` and runs on at the machine's pace until moved; `frozen`, it
 * stands still at each time it is set to (however long a child takes to start).
 */
export function clockFile(startMs: number, options: { frozen?: boolean } = {}): ClockFile {
  const file = join(mkdtempSync(join(tmpdir(), 'fanlake-clock-')), 'clock.json');
  const frozen = options.frozen === true;
  let anchor = { seasonMs: startMs, realMs: Date.now(), frozen };
  const write = () => {
    writeFileSync(`${file}.tmp`, JSON.stringify(anchor));
    renameSync(`${file}.tmp`, file);
  };
  write();
  return {
    env: { NODE_OPTIONS: `--import ${join(REPO, 'test', 'helpers', 'season-clock.mjs')}`, FANLAKE_TEST_CLOCK_FILE: file },
    now: () => anchor.seasonMs + (frozen ? 0 : Date.now() - anchor.realMs),
    set(ms) {
      anchor = { seasonMs: ms, realMs: Date.now(), frozen };
      write();
    },
  };
}
