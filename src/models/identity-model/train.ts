import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows } from '../../core/duckdb.js';
import { BLOCK_KEY_COMPARISONS, COMPARISONS, type ComparisonName, type IdentityModelConfig } from './config.js';
import { storeModel, type StoredLevel, type StoredModel } from './store.js';

/**
 * Trains the identity model as Splink does (docs/decisions.md "How fans are linked"), from the
 * records as `intermediate.int_identity_comparables` holds them, and stores it as the next
 * version in `meta` (store.ts):
 *
 * - u, per level, from random pairs: a random sample of records, every pair of them compared
 *   (about `u_sample_pairs` pairs). A level no sampled pair showed gets the floor
 *   `u_floor_pairs` pairs, before the counts are normalised: rare, not impossible (and likewise
 *   m, `m_floor_matches`). An exact e-mail or phone match, which a sample of a large club never
 *   shows, has its u from the values' frequencies instead (as Splink does): the pairs of records
 *   of different entities sharing a value, over all pairs of them with a value. A comparison
 *   with no u evidence at all is untrained: it weighs nothing (u = m) and is reported.
 * - m by expectation-maximisation, once per training blocking rule, on that rule's pairs (of at
 *   most `training_records` records): the comparisons the rule blocks on agree in every pair,
 *   so they are held out of that session; u stays as sampled. Each m is the mean of the
 *   converged sessions that estimated it; a session that did not converge is stored (and
 *   reported) but not used.
 * - the prior, the chance that two random records are one person, from the deterministic
 *   rules: the candidate pairs that satisfy one, over the `assumed_recall` of them, over all
 *   pairs of records.
 *
 * SQL computes the pairs and counts each pattern of levels; the EM iterations run here, over
 * those counts (a few hundred patterns, whatever the club's size): a loop in TypeScript reads
 * plainly and stops on convergence, which a recursive CTE could only express by carrying every
 * iteration's state along.
 */
export async function trainIdentityModel(connection: DuckDBConnection, config: IdentityModelConfig, recordsSignature?: string): Promise<StoredModel> {
  const comparisons = configuredComparisons(config);
  const [counted] = await queryRows(connection, 'select count(*) as records from intermediate.int_identity_comparables');
  const recordCount = Number(counted!.records);

  const u = await estimateU(connection, config, comparisons, recordCount);
  const sessions: EmSession[] = [];
  await connection.run(`create or replace temp table identity_training_records as
    select * from intermediate.int_identity_comparables
    ${recordCount > config.training.training_records ? sampleOf(config.training.training_records, 7) : ''}`);
  for (const rule of config.blockingRules.filter((candidate) => candidate.train)) {
    const fixed = new Set(rule.blockOn.flatMap((key) => BLOCK_KEY_COMPARISONS[key]));
    const active = comparisons.filter((comparison) => !fixed.has(comparison.name));
    const patterns = await levelPatterns(connection, 'identity_training_records', String(rule.index), comparisons);
    sessions.push({ rule: rule.rule, ...expectationMaximisation(patterns, active, u, config, comparisons.map((comparison) => comparison.name)) });
  }
  await connection.run('drop table if exists identity_training_records');
  const prior = await estimatePrior(connection, config, recordCount);

  const levels: StoredLevel[] = comparisons.flatMap((comparison) => [
    { comparison: comparison.name, levelIndex: 0, level: 'missing', m: null, u: null, uPairs: 0, mSessions: 0 },
    ...comparison.levels.map((level, at) => {
      const estimates = sessions.filter((session) => session.converged && session.m.has(comparison.name)).map((session) => session.m.get(comparison.name)![at]!);
      const m = estimates.length > 0 ? estimates.reduce((sum, value) => sum + value, 0) / estimates.length : startingM(comparison.levels.length)[at]!;
      const estimate = u.get(comparison.name)!;
      return {
        comparison: comparison.name,
        levelIndex: at + 1,
        level,
        m,
        // no u evidence: the level says nothing (weight 0), and untrainedComparisons reports it
        u: estimate.trained ? estimate.u[at]! : m,
        uPairs: estimate.pairs[at]!,
        mSessions: estimates.length,
      };
    }),
  ]);
  return storeModel(connection, {
    definitionHash: config.definitionHash,
    records: recordCount,
    prior: prior.prior,
    priorPairs: prior.pairs,
    uSamplePairs: [...u.values()][0]?.total ?? 0,
    sessions: sessions.map((session) => ({ rule: session.rule, pairs: session.pairs, iterations: session.iterations, converged: session.converged, lambda: session.lambda, trained: [...session.m.keys()] })),
    levels,
    definition: config,
    ...(recordsSignature === undefined ? {} : { recordsSignature }),
  });
}

export interface Comparison {
  name: ComparisonName;
  /** Level names, index 1 first (level 0, missing, is not among them). */
  levels: string[];
}

function configuredComparisons(config: IdentityModelConfig): Comparison[] {
  return (Object.keys(COMPARISONS) as ComparisonName[])
    .map((name) => ({ name, levels: config.levels.filter((level) => level.comparison === name).map((level) => level.level) }))
    .filter((comparison) => comparison.levels.length > 0);
}

/** A pattern of levels (one per configured comparison, 0 missing) and how many pairs show it. */
export interface Pattern {
  levels: number[];
  pairs: number;
}

/** The level patterns of `recordsTable`'s candidate pairs under `ruleFilter` (see macros.identity_candidate_pairs). */
async function levelPatterns(connection: DuckDBConnection, recordsTable: string, ruleFilter: string, comparisons: readonly Comparison[]): Promise<Pattern[]> {
  const rows = await queryRows(
    connection,
    `with candidates as (select * from macros.identity_candidate_pairs('${recordsTable}', '${ruleFilter}'))
     select ${comparisons.map((comparison) => `levels.${comparison.name}`).join(', ')}, count(*) as pairs
     from macros.identity_pair_levels('candidates', '${recordsTable}')
     group by all`,
  );
  return rows.map((row) => ({ levels: comparisons.map((comparison) => Number(row[comparison.name])), pairs: Number(row.pairs) }));
}

export interface UEstimate {
  /** u per level (index 0 is level 1). */
  u: number[];
  /** Sampled pairs at each level. */
  pairs: number[];
  /** Sampled pairs compared (both values present). */
  total: number;
  /** Whether any pair was evidence for u (false: no sampled pair had the value on both sides, and no level is counted from frequencies). */
  trained: boolean;
}

/** Floors each count at `floor` and normalises them to add up to `sum` (floored first, so they do add up). */
export function flooredShares(counts: readonly number[], floor: number, sum = 1): number[] {
  const floored = counts.map((count) => Math.max(count, floor));
  const total = floored.reduce((added, count) => added + count, 0);
  return floored.map((count) => (total === 0 ? sum / counts.length : (count / total) * sum));
}

/**
 * `rows` records drawn by a hash of their number and `seed`: the same records for the same
 * data on every run (DuckDB's `repeatable` reservoir is so only on one thread, and a retrain on
 * unchanged records moved the weights), and a few records more or less move few of them.
 */
function sampleOf(rows: number, seed: number): string {
  return `order by hash(record_number, ${seed}) limit ${rows}`;
}

async function estimateU(connection: DuckDBConnection, config: IdentityModelConfig, comparisons: readonly Comparison[], recordCount: number): Promise<Map<ComparisonName, UEstimate>> {
  // n records give n(n-1)/2 pairs
  const sampleRecords = Math.min(recordCount, Math.ceil((1 + Math.sqrt(1 + 8 * config.training.u_sample_pairs)) / 2));
  await connection.run(`create or replace temp table identity_u_sample as
    select * from intermediate.int_identity_comparables ${sampleOf(sampleRecords, 42)}`);
  const rows = await queryRows(
    connection,
    `with sample_pairs as (
         select lower_records.record_number as lower_number, higher_records.record_number as higher_number
         from identity_u_sample as lower_records
         inner join identity_u_sample as higher_records
             on higher_records.record_number > lower_records.record_number
             and higher_records.entity_key <> lower_records.entity_key
     )
     select ${comparisons.map((comparison) => `levels.${comparison.name}`).join(', ')}, count(*) as pairs
     from macros.identity_pair_levels('sample_pairs', 'identity_u_sample')
     group by all`,
  );
  await connection.run('drop table if exists identity_u_sample');
  const estimates = new Map<ComparisonName, UEstimate>();
  for (const comparison of comparisons) {
    const pairs = comparison.levels.map((_, level) => rows.filter((row) => Number(row[comparison.name]) === level + 1).reduce((sum, row) => sum + Number(row.pairs), 0));
    const total = pairs.reduce((sum, count) => sum + count, 0);
    const exact = exactContactLevel(config, comparison.name);
    const exactAt = exact?.at;
    const frequency = exact === undefined ? undefined : await exactMatchU(connection, exact.column, config.training.u_floor_pairs);
    if (exactAt === undefined || frequency === undefined) {
      estimates.set(comparison.name, { u: flooredShares(pairs, config.training.u_floor_pairs), pairs, total, trained: total > 0 });
      continue;
    }
    // the exact level from the values' frequencies, the others sharing the rest as sampled
    const others = flooredShares(pairs.filter((_, at) => at !== exactAt), config.training.u_floor_pairs, 1 - frequency.u);
    const u = pairs.map((_, at) => (at === exactAt ? frequency.u : others.shift()!));
    estimates.set(comparison.name, { u, pairs: pairs.map((count, at) => (at === exactAt ? frequency.pairs : count)), total, trained: true });
  }
  return estimates;
}

/** The position (0 for level 1) of an e-mail or phone comparison's first exact level (`same`, or `same_number` in E.164), whose u comes from frequencies, and the column it compares. */
function exactContactLevel(config: IdentityModelConfig, comparison: ComparisonName): { at: number; column: string } | undefined {
  if (COMPARISONS[comparison] !== 'text') return undefined;
  const own = config.levels.filter((level) => level.comparison === comparison);
  const at = own.findIndex((level) => level.test === 'same' || level.test === 'same_number');
  if (at < 0) return undefined;
  return { at, column: own[at]!.test === 'same_number' ? 'phone_e164' : comparison === 'phone' ? 'phone_key' : 'email' };
}

/**
 * u of an exact e-mail or phone match from the values' frequencies: pairs of records of
 * different entities sharing a value, over all pairs of records of different entities that both
 * have one. Pairs of one person's records count too (as they do among random pairs): u is a
 * little high, the weight a little low. Undefined when fewer than two entities have a value.
 */
async function exactMatchU(connection: DuckDBConnection, column: string, floorPairs: number): Promise<{ u: number; pairs: number } | undefined> {
  const pairsOf = (count: string) => `sum(${count} * (${count} - 1) / 2)`;
  const [row] = await queryRows(
    connection,
    `with present as (select ${column} as value, entity_key from intermediate.int_identity_comparables where ${column} is not null)
     select
         (select count(*) * (count(*) - 1) / 2 from present) as all_pairs,
         (select ${pairsOf('records')} from (select count(*) as records from present group by entity_key)) as entity_pairs,
         (select ${pairsOf('records')} from (select count(*) as records from present group by value)) as value_pairs,
         (select ${pairsOf('records')} from (select count(*) as records from present group by value, entity_key)) as entity_value_pairs`,
  );
  const pairs = Number(row!.value_pairs ?? 0) - Number(row!.entity_value_pairs ?? 0);
  const all = Number(row!.all_pairs ?? 0) - Number(row!.entity_pairs ?? 0);
  if (all <= 0) return undefined;
  return { u: Math.max(pairs, floorPairs) / all, pairs };
}

/** Starting m of a comparison's levels: most matches agree at the first level, few at the last. */
function startingM(levels: number): number[] {
  if (levels === 1) return [1];
  const rest = 0.1 / (levels - 1);
  return [0.9, ...Array.from({ length: levels - 1 }, () => rest)];
}

interface EmSession {
  rule: string;
  /** m per level of each comparison this session estimated. */
  m: Map<ComparisonName, number[]>;
  pairs: number;
  iterations: number;
  converged: boolean;
  /** The share of the session's pairs EM took for matches. */
  lambda: number;
}

/**
 * Expectation-maximisation over the level patterns of one training rule's pairs: the E step
 * gives each pattern its probability of being a match from the current m (and the fixed u),
 * the M step sets each level's m to the expected share of matches at that level, and the
 * share of matches; until no m moves more than `em_tolerance`. A value missing on a side is no
 * evidence and counts at neither step.
 */
export function expectationMaximisation(
  patterns: readonly Pattern[],
  active: readonly Comparison[],
  u: ReadonlyMap<ComparisonName, UEstimate>,
  config: IdentityModelConfig,
  /** Every comparison of the patterns, in the order of their levels. */
  allComparisons: readonly ComparisonName[],
): Omit<EmSession, 'rule'> {
  const position = new Map(allComparisons.map((name, at) => [name, at]));
  const m = new Map(active.map((comparison) => [comparison.name, startingM(comparison.levels.length)]));
  const pairs = patterns.reduce((sum, pattern) => sum + pattern.pairs, 0);
  let lambda = 0.5;
  let iterations = 0;
  let converged = false;
  if (pairs === 0) return { m: new Map(), pairs, iterations, converged, lambda: 0 };
  while (iterations < config.training.em_max_iterations && !converged) {
    iterations++;
    const expected = new Map(active.map((comparison) => [comparison.name, comparison.levels.map(() => 0)]));
    let matches = 0;
    for (const pattern of patterns) {
      let matchOdds = lambda;
      let otherOdds = 1 - lambda;
      for (const comparison of active) {
        const level = pattern.levels[position.get(comparison.name)!]!;
        if (level === 0) continue;
        matchOdds *= m.get(comparison.name)![level - 1]!;
        otherOdds *= u.get(comparison.name)!.u[level - 1]!;
      }
      const probability = matchOdds + otherOdds === 0 ? 0 : matchOdds / (matchOdds + otherOdds);
      matches += probability * pattern.pairs;
      for (const comparison of active) {
        const level = pattern.levels[position.get(comparison.name)!]!;
        if (level > 0) expected.get(comparison.name)![level - 1]! += probability * pattern.pairs;
      }
    }
    let moved = 0;
    for (const comparison of active) {
      const counts = expected.get(comparison.name)!;
      const total = counts.reduce((sum, count) => sum + count, 0);
      if (total === 0) continue;
      const next = flooredShares(counts, config.training.m_floor_matches);
      const previous = m.get(comparison.name)!;
      moved = Math.max(moved, ...next.map((value, at) => Math.abs(value - previous[at]!)));
      m.set(comparison.name, next);
    }
    lambda = matches / pairs;
    converged = moved < config.training.em_tolerance;
  }
  // a comparison never present in the session's pairs was not estimated by it
  for (const comparison of active) {
    const present = patterns.some((pattern) => pattern.levels[position.get(comparison.name)!]! > 0);
    if (!present) m.delete(comparison.name);
  }
  return { m, pairs, iterations, converged, lambda };
}

async function estimatePrior(connection: DuckDBConnection, config: IdentityModelConfig, recordCount: number): Promise<{ prior: number; pairs: number }> {
  const indexOf = (comparison: ComparisonName, level: string) => config.levels.find((known) => known.comparison === comparison && known.level === level)!.index;
  const conditions = config.deterministicRules
    .map((rule) => `(${rule.conditions.map((condition) => `levels.${condition.comparison} = ${indexOf(condition.comparison, condition.level)}`).join(' and ')})`)
    .join(' or ');
  // Counted by an aggregate's filter, not a where: DuckDB pushes a where down to the join and
  // computes the comparisons again for each level it names; an aggregate reads the levels
  // computed once.
  const [row] = await queryRows(
    connection,
    `with candidates as (select * from macros.identity_candidate_pairs('intermediate.int_identity_comparables', 'predict'))
     select count(*) filter (where ${conditions || 'false'}) as pairs
     from macros.identity_pair_levels('candidates', 'intermediate.int_identity_comparables')`,
  );
  const pairs = Number(row!.pairs);
  const allPairs = (recordCount * (recordCount - 1)) / 2;
  // at least one pair: a model for a club whose rules find nothing must still be a number
  const prior = Math.min(Math.max(pairs, 1) / config.training.assumed_recall / Math.max(allPairs, 1), 0.5);
  return { prior, pairs };
}
