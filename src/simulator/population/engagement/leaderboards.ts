import { Rng } from '../../random.js';
import { CITIES } from '../names.js';
import type { Population } from '../population.js';
import { iso } from '../time.js';
import type { CustomerProfiles } from './profiles.js';

export interface LeaderboardInterval {
  readonly id: number;
  readonly name: string;
  readonly startMs: number;
  readonly endMs: number;
}

export interface LeaderboardSeason {
  readonly id: number;
  readonly name: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly privateLeaderboardsEnabled: boolean;
  readonly demographicFieldId: string | null;
  readonly groupings: readonly { readonly name: string; readonly intervals: readonly LeaderboardInterval[] }[];
}

/** One board: a season's general board, or one of an interval, a demographic value, or both. */
export interface BoardKey {
  readonly seasonId: number;
  readonly intervalId: number | null;
  readonly demographicValue: string | null;
}

export interface TopPosition {
  readonly participantName: string;
  readonly customerProfileId: number;
  readonly score: number | null;
  readonly position: number | null;
  readonly previousPosition: number | null;
}

export interface SummaryEntry {
  readonly name: string;
  readonly leaderboardIntervalId: number | null;
  readonly demographicValue: string | null;
  readonly score: number;
  readonly position: number;
  readonly previousPosition: number | null;
}

/** A computed board: participants best first, with current and previous scores. */
interface Board {
  readonly order: Int32Array;
  readonly scores: Float64Array;
  /** Aligned with `order`; NaN for a participant new since the last recalculation. */
  readonly previous: Float64Array;
  /** Previous scores, best first, NaN left out: a previous position is a binary search. */
  readonly previousSorted: Float64Array;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const BOARD_CACHE = 16;

/** The demographic field of the season that has one, and its values (the profile's county). */
export const DEMOGRAPHIC_FIELD = 'homeCounty';
export const DEMOGRAPHIC_VALUES: readonly string[] = [...new Set(CITIES.map(([, , county]) => county))].sort();

/**
 * The documented rule: the active season, else the newest past one, else the one
 * starting soonest.
 */
export function mostCurrentSeason<S extends { startMs: number; endMs: number }>(seasons: readonly S[], nowMs: number): S | undefined {
  const active = seasons.filter((s) => s.startMs <= nowMs && nowMs <= s.endMs).sort((a, b) => b.startMs - a.startMs)[0];
  if (active) return active;
  const past = seasons.filter((s) => s.endMs < nowMs).sort((a, b) => b.endMs - a.endMs)[0];
  if (past) return past;
  return seasons.filter((s) => s.startMs > nowMs).sort((a, b) => a.startMs - b.startMs)[0];
}

/**
 * Four seasons around the data time (two past, one of them with a demographic field, one
 * active, one future), monthly and half-season intervals, and scores per profile. Scores
 * come in steps of 10 from a range about a third the size of the field, so every board
 * has ties (positions are competition ranks: 1, 2, 2, 4).
 */
export class Leaderboards {
  readonly seasons: readonly LeaderboardSeason[];
  private readonly cache = new Map<string, Board>();

  constructor(
    private readonly population: Population,
    private readonly profiles: CustomerProfiles,
    private readonly nowMs: number,
  ) {
    const now = new Date(nowMs);
    const month = (offset: number) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1);
    const season = (id: number, label: string, from: number, demographic: boolean, privateBoards: boolean): LeaderboardSeason => {
      const months = Array.from({ length: 9 }, (_, k): LeaderboardInterval => {
        const start = month(from + k);
        const date = new Date(start);
        return { id: id * 100 + k + 1, name: `${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`, startMs: start, endMs: month(from + k + 1) - 1000 };
      });
      const halves = [
        { id: id * 100 + 51, name: 'First half', startMs: month(from), endMs: month(from + 4) - 1000 },
        { id: id * 100 + 52, name: 'Second half', startMs: month(from + 4), endMs: month(from + 9) - 1000 },
      ];
      return {
        id,
        name: `${label} ${new Date(month(from)).getUTCFullYear()}`,
        startMs: month(from),
        endMs: month(from + 9) - 1000,
        privateLeaderboardsEnabled: privateBoards,
        demographicFieldId: demographic ? DEMOGRAPHIC_FIELD : null,
        groupings: [
          { name: 'Months', intervals: months },
          { name: 'Halves', intervals: halves },
        ],
      };
    };
    this.seasons = [
      season(11, 'Season', -26, false, false),
      season(12, 'Supporter club cup', -14, true, false),
      season(13, 'Season', -3, false, true),
      season(14, 'Season', 9, false, true),
    ];
  }

  season(id: number): LeaderboardSeason | undefined {
    return this.seasons.find((s) => s.id === id);
  }

  interval(season: LeaderboardSeason, id: number): LeaderboardInterval | undefined {
    for (const grouping of season.groupings) for (const interval of grouping.intervals) if (interval.id === id) return interval;
    return undefined;
  }

  intervals(season: LeaderboardSeason): LeaderboardInterval[] {
    return season.groupings.flatMap((g) => g.intervals);
  }

  /** Every board of a season: general, per interval, and per demographic value of both. */
  boardKeys(season: LeaderboardSeason): BoardKey[] {
    const intervals: (number | null)[] = [null, ...this.intervals(season).map((i) => i.id)];
    const values: (string | null)[] = [null, ...(season.demographicFieldId ? DEMOGRAPHIC_VALUES : [])];
    return values.flatMap((demographicValue) => intervals.map((intervalId) => ({ seasonId: season.id, intervalId, demographicValue })));
  }

  seasonRecord(season: LeaderboardSeason): Record<string, unknown> {
    return {
      id: season.id,
      name: season.name,
      startDate: iso(season.startMs),
      endDate: iso(season.endMs),
      privateLeaderboardsEnabled: season.privateLeaderboardsEnabled,
      demographicFieldId: season.demographicFieldId,
      intervalGroupings: season.groupings.map((g) => ({
        name: g.name,
        intervals: g.intervals.map((i) => ({ id: i.id, name: i.name, startDate: iso(i.startMs), endDate: iso(i.endMs) })),
      })),
    };
  }

  /** Every position up to `positionCount`: ties at the cut make the list longer. */
  top(key: BoardKey, positionCount: number): TopPosition[] {
    const board = this.board(key);
    const out: TopPosition[] = [];
    for (let k = 0; k < board.order.length; k++) {
      const position = this.rank(board.scores, board.scores[k]!);
      if (position > positionCount) break;
      const profile = board.order[k]!;
      const previous = board.previous[k]!;
      out.push({
        participantName: this.participantName(profile),
        customerProfileId: this.profiles.idOf(profile),
        score: board.scores[k]!,
        position,
        previousPosition: Number.isNaN(previous) ? null : this.rank(board.previousSorted, previous),
      });
    }
    return out;
  }

  /** A profile's entries in every board of `season` it takes part in. */
  summary(profileIndex: number, season: LeaderboardSeason): SummaryEntry[] {
    const own = this.demographicValueOf(season, profileIndex);
    const entries: SummaryEntry[] = [];
    for (const key of this.boardKeys(season)) {
      if (key.demographicValue !== null && key.demographicValue !== own) continue;
      const score = this.scoreOf(season, key.intervalId, profileIndex);
      if (score === null) continue;
      const board = this.board(key);
      const previous = this.previousScoreOf(season, key, profileIndex, score);
      const interval = key.intervalId === null ? undefined : this.interval(season, key.intervalId);
      entries.push({
        name: [season.name, interval?.name, key.demographicValue].filter(Boolean).join(' – '),
        leaderboardIntervalId: key.intervalId,
        demographicValue: key.demographicValue,
        score,
        position: this.rank(board.scores, score),
        previousPosition: Number.isNaN(previous) ? null : this.rank(board.previousSorted, previous),
      });
    }
    return entries;
  }

  /** Forget computed boards (after profiles are removed). */
  invalidate(): void {
    this.cache.clear();
  }

  private board(key: BoardKey): Board {
    const cacheKey = `${key.seasonId}|${key.intervalId}|${key.demographicValue}`;
    const cached = this.cache.get(cacheKey);
    if (cached) return cached;
    const season = this.season(key.seasonId)!;
    const entries: { profile: number; score: number; previous: number }[] = [];
    for (const profile of this.profiles.liveIndices()) {
      if (key.demographicValue !== null && this.demographicValueOf(season, profile) !== key.demographicValue) continue;
      const score = this.scoreOf(season, key.intervalId, profile);
      if (score === null) continue;
      entries.push({ profile, score, previous: this.previousScoreOf(season, key, profile, score) });
    }
    entries.sort((a, b) => b.score - a.score || a.profile - b.profile);
    const board: Board = {
      order: Int32Array.from(entries, (e) => e.profile),
      scores: Float64Array.from(entries, (e) => e.score),
      previous: Float64Array.from(entries, (e) => e.previous),
      previousSorted: Float64Array.from(entries.filter((e) => !Number.isNaN(e.previous)), (e) => e.previous).sort().reverse(),
    };
    if (this.cache.size >= BOARD_CACHE) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(cacheKey, board);
    return board;
  }

  /** 1 + how many scores are strictly higher (scores sorted best first). */
  private rank(sorted: Float64Array, score: number): number {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! > score) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  }

  /** A profile's score on the general (`intervalId` null) or an interval board; null when it does not take part. */
  private scoreOf(season: LeaderboardSeason, intervalId: number | null, profile: number): number | null {
    const seed = this.population.seed;
    if (season.startMs > this.nowMs || !Rng.for(seed, 'eng-lb-season', season.id, profile).chance(0.5)) return null;
    const field = this.profiles.count * 0.5;
    if (intervalId === null) {
      const range = Math.max(8, Math.ceil(field / 3));
      return 10 * Math.floor(Rng.for(seed, 'eng-lb-score', season.id, profile).next() * range);
    }
    const interval = this.interval(season, intervalId)!;
    const rng = Rng.for(seed, 'eng-lb-interval', intervalId, profile);
    if (interval.startMs > this.nowMs || !rng.chance(0.7)) return null;
    return 10 * Math.floor(rng.next() * Math.max(6, Math.ceil((field * 0.7) / 3)));
  }

  /** The score before the last (daily) recalculation; NaN for a newcomer. Closed boards do not move. */
  private previousScoreOf(season: LeaderboardSeason, key: BoardKey, profile: number, score: number): number {
    const endMs = key.intervalId === null ? season.endMs : this.interval(season, key.intervalId)!.endMs;
    if (endMs < this.nowMs) return score;
    const rng = Rng.for(this.population.seed, 'eng-lb-previous', season.id, key.intervalId ?? 0, profile);
    if (rng.chance(0.05)) return Number.NaN;
    return Math.max(0, score - 10 * rng.int(0, 2));
  }

  private demographicValueOf(season: LeaderboardSeason, profile: number): string | null {
    if (!season.demographicFieldId) return null;
    return this.population.persons.get(this.profiles.personOf(profile)).county;
  }

  /** Nickname; else first name and the first letter of the last name; else Anonymous. */
  private participantName(profile: number): string {
    const core = this.profiles.core(profile);
    if (core.nickname) return core.nickname;
    if (core.named) return `${core.person.firstName} ${core.person.lastName.charAt(0)}`;
    return 'Anonymous';
  }
}
