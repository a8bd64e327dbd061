/** Types of season-driver.mjs, for the suite's season (test/e2e/season.test.ts). */

/** An event of a season's hour: its name and argument (see `EVENTS` in season-driver.mjs). */
export type SeasonEvent = readonly [name: string, argument?: number | string];

export interface SeasonStep {
  /** Hours from the simulator's start. */
  hour: number;
  events: readonly SeasonEvent[];
  /** How the hour's `fanlake run` must end; `none`: no run that hour. */
  run: 'ok' | 'failed' | 'killed' | 'none';
}

export interface DiskUse {
  raw: number;
  warehouse: number;
  listen: number;
  total: number;
}

export interface SeasonRun {
  hour: number;
  at: string;
  ended: 'ok' | 'failed' | 'killed';
  wallMs: number;
  /** CPU of the run's process, sampled every 100 ms (a lower bound). */
  cpuMs: number;
  requests: number;
  /** How the run read the customer profiles: its status and the extract's note on them. */
  engagement: string | undefined;
  /** Customer profiles changed or removed in this hour's events. */
  changedProfiles: string[];
  disk: DiskUse;
  /** After a `retrain` event's run: the records `identity train` listed as moving, and what it and `--apply` printed. */
  retrain?: { listed: string[]; trained: string; applied: string; cpuMs: number };
}

export interface Season {
  runs: SeasonRun[];
  dataDir: string;
  workDir: string;
  env: Record<string, string>;
  simUrl: string;
  changedProfiles: string[];
  /** Record keys (system:record_id) whose fan_id an applied retrain listed as moving. */
  retrainMoved: string[];
}

export interface Difference {
  onlySeason: number;
  onlyOther: number;
}

export interface SeasonComparison {
  /** Raw tables whose live rows differ from a fresh full load's, on the source's columns. */
  raw: Record<string, Difference | string>;
  profilesAgainstTruth: { missing: string[]; extra: string[] };
  /** Model relations that differ from `build --full-refresh` of the season's warehouse. */
  models: Record<string, Difference>;
  figures: Record<string, Difference & { season: unknown; fresh: unknown }>;
  /** Fans whose records neither changed, nor were joined, nor were listed by an applied retrain, with another fan_id at the end. */
  movedFans: { was: string; now: string }[];
  fansAtStart: number;
  /** Records of the first run's fans among those an applied retrain listed. */
  retrainMovedAtStart: number;
  disk: { season: DiskUse; fresh: DiskUse };
}

export const SEASON_SECRET: string;
export const SHORT_SEASON: SeasonStep[];
export function longSeason(days: number): SeasonStep[];
export function bytesUnder(path: string): number;
export function runSeason(options: { simUrl: string; env: Record<string, string>; steps: readonly SeasonStep[]; workDir: string; onStep?: (run: SeasonRun) => void }): Promise<Season>;
export function compareSeason(season: Season): Promise<SeasonComparison>;
