import type { DuckDBConnection, DuckDBInstance, Json } from '@duckdb/node-api';
import { access } from 'node:fs/promises';
import { openDatabase, queryRows, quoteIdent, withConnection } from '../../core/duckdb.js';
import { inLanes, withLanes } from '../../core/lanes.js';
import type { DatabaseOptions } from '../../core/duckdb.js';
import { FanlakeError } from '../../core/errors.js';
import { warehousePath as warehousePathOf } from '../../raw-contract/index.js';
import { DEFAULT_MODELS_DIR, discoverProject, type ModelProject, SOURCE_SCHEMA } from '../discover-project.js';
import { existingRelations } from '../../warehouse/warehouse.js';
import { MODEL_ERROR_CODES } from '../model-errors.js';
import { parseSelects } from '../sql-references.js';
import { planTests } from './plan-tests.js';
import { lastReadEpoch } from './last-read.js';
import { recordCheckResults } from './record-check-results.js';
import { type LastCheck, readCheckState, recordCheckState, recordSessionFreeSql, testInputs } from './check-state.js';
import { ensureBookkeeping } from '../../warehouse/bookkeeping.js';
import { type ChangedRowsQuery, changedRowsSql, keyColumnsOf, type LastPass, passOf, readLastPasses, readLoads, recordPasses } from './delta-tests.js';
import { readModelChanges } from '../../warehouse/changed-keys.js';
import { changedKeysSql } from './keyed-tests.js';
import type { CheckKind, PlannedTest } from './plan-tests.js';
import type { Freshness } from './sources-file.js';
import type { Severity } from './test-declaration.js';

export const TEST_STATUSES = ['pass', 'fail', 'error', 'skipped'] as const;
/**
 * `pass`; `fail`: failing rows found (or data too old); `error`: the test could not run
 * (missing table, bad SQL); `skipped`: its table rests on an optional source not loaded.
 */
export type TestStatus = (typeof TEST_STATUSES)[number];

export interface TestResult {
  name: string;
  kind: CheckKind;
  target?: string;
  /** The level it is judged at: the declared one, or for freshness the threshold crossed. */
  severity: Severity;
  status: TestStatus;
  /** Failing rows (for unique and accepted_values: failing values); 1 for stale data. */
  failures: number;
  /** The first few failing rows, JSON-safe. */
  sample: Record<string, Json>[];
  /** Set when the test declares that each failing row names something to fix (`-- show: N`). */
  show?: number;
  seconds: number;
  /** What a person should read: the staleness, or why the test could not run. */
  message?: string;
  error?: FanlakeError;
  /** For a freshness test: the newest value, its age at `now`, and the declared thresholds. */
  freshness?: { latestAt?: string; ageHours?: number; warnAfterHours?: number; errorAfterHours?: number };
  /** Set when the test did not run: nothing it reads changed since this earlier check, whose result it repeats. */
  carriedFrom?: { checkRunId: string; checkedAt: string };
  /** Set when the test read only the rows (a custom test: the keys) that changed since it last passed (checks/delta-tests.ts, keyed-tests.ts). */
  changedRowsOnly?: true;
}

export interface RunChecksOptions extends DatabaseOptions {
  dataDir: string;
  /** Defaults to `<dataDir>/warehouse.duckdb`. */
  warehousePath?: string;
  /** Defaults to the package's `sql/` folder. */
  modelsDir?: string;
  /** The time freshness is measured against; defaults to now. */
  now?: Date;
  /** Failing rows kept per test; default 5. */
  sampleSize?: number;
  /** Store the results in `meta.check_results` (default true), for the data-quality report. */
  record?: boolean;
  /** Rows of `meta.check_results` older than this many days are removed as results are stored; 0 or absent keeps them all. */
  retentionDays?: number;
  /**
   * Run every test over whole tables. By default a test whose definition and inputs (the state
   * of what it reads) are as at its last run is not run again: its last result is carried; and
   * a declared test on a model written by key or on a raw table that passed before reads only
   * the rows changed since (checks/delta-tests.ts), a custom test that declares its keys only
   * the keys changed since (checks/keyed-tests.ts).
   */
  all?: boolean;
  /** The warehouse, already open (`run` shares the build's); left open. Absent: the check opens and closes it. */
  instance?: DuckDBInstance;
}

/** Whether a set of results should fail `check`: any error-level test that failed or could not run. */
export function checksFailed(results: readonly TestResult[]): boolean {
  return results.some((result) => result.severity === 'error' && (result.status === 'fail' || result.status === 'error'));
}

/**
 * `fanlake check`: runs every source test, model test and custom SQL test against the
 * warehouse, one after the other, and returns a result per test; never throws for a test.
 *
 * @throws ModelProjectError for a broken declaration, FanlakeError `E_WAREHOUSE_MISSING`.
 */
export async function runChecks(options: RunChecksOptions): Promise<TestResult[]> {
  const project = await discoverProject(options.modelsDir ?? DEFAULT_MODELS_DIR);
  const tests = planTests(project);
  const warehousePath = options.warehousePath ?? warehousePathOf(options.dataDir);
  await access(warehousePath).catch((cause: unknown) => {
    throw new FanlakeError(MODEL_ERROR_CODES.warehouseMissing, `no warehouse at ${warehousePath}; run fanlake load and build first`, { cause });
  });
  const now = options.now ?? new Date();
  const instance = options.instance ?? (await openDatabase(warehousePath, options));
  try {
    return await withConnection(instance, async (connection) => {
      // A check that records moves what an earlier fanlake kept in raw first (a reader cannot).
      if (options.record ?? true) await ensureBookkeeping(connection);
      const present = await existingRelations(connection);
      const unavailable = await restingOnMissingOptionalSources(project, present, connection);
      const changes = await readModelChanges(connection);
      const inputs = await testInputs(connection, tests, changes);
      const last = options.all ? new Map<string, LastCheck>() : await readCheckState(connection);
      const passes = await readLastPasses(connection);
      const keyColumns = await keyColumnsOf(connection, project);
      const loads = await readLoads(connection);
      // each test's result where it needs no query, else the query it runs
      const planned = tests.map((test): TestResult | QueryPlan => {
        if (test.target && unavailable.has(test.target.toLowerCase())) {
          return { ...resultOf(test), status: 'skipped', failures: 0, sample: [], seconds: 0, message: 'rests on an optional source that is not loaded' };
        }
        const current = inputs.tests.get(test.name)!;
        const missing = [...(test.target ? [test.target] : []), ...current.reads].find((relation) => !present.has(relation.toLowerCase()));
        if (missing !== undefined) return notInWarehouse(test, missing);
        const before = last.get(test.name);
        if (before && current.inputs !== undefined && before.definition === current.definition && before.inputs === current.inputs) return carried(test, before);
        const pass = passes.get(test.name);
        const keyed = (sql: string | undefined) => (sql === undefined ? undefined : { sql });
        const changedOnly =
          options.all || current.inputs === undefined
            ? undefined
            : test.declaration === undefined
              ? keyed(changedKeysSql(test, current, pass, inputs.states, changes, keyColumns, loads))
              : changedRowsSql(test, pass, current, inputs.states, changes, keyColumns, loads);
        return { test, changedOnly };
      });
      const sampleSize = (test: PlannedTest) => Math.max(test.show ?? 0, options.sampleSize ?? 5);
      // the tests' queries two at a time (core/lanes.ts), those reading the same changed rows of a
      // table together, on one lane, which materializes those rows once for them
      const queried = new Map<QueryPlan, TestResult>();
      const groups = await withLanes(instance, connection, options, (lanes) =>
        inLanes(lanes, sharingChangedRows(planned.flatMap((plan) => ('changedOnly' in plan ? [plan] : []))), (lane, group) => runGroup(lane, group, now, sampleSize)),
      );
      for (const results of groups.values()) for (const [plan, result] of results) queried.set(plan, result);
      const results: TestResult[] = [];
      const ran: Parameters<typeof recordCheckState>[3][number][] = [];
      const passed: { name: string; pass: LastPass }[] = [];
      for (const plan of planned) {
        if (!('changedOnly' in plan)) {
          results.push(plan);
          continue;
        }
        const { test } = plan;
        const result = queried.get(plan)!;
        results.push(result);
        const current = inputs.tests.get(test.name)!;
        if (current.inputs === undefined) continue;
        ran.push({ name: test.name, definition: current.definition, inputs: current.inputs, result: storable(result) });
        // a custom test without keys reads whole tables anyway: it keeps no changed keys
        if (result.status === 'pass' && readsChanges(test)) passed.push({ name: test.name, pass: passOf(current, inputs.states, changes, loads) });
      }
      const recordAll = async (checkRunId: string) => {
        await recordCheckState(connection, checkRunId, now, ran);
        await recordSessionFreeSql(connection, inputs.sessionFree);
        const reading = tests.flatMap((test) => {
          const current = inputs.tests.get(test.name);
          return current?.inputs === undefined || !readsChanges(test) ? [] : [{ name: test.name, definition: current.definition, reads: current.reads }];
        });
        await recordPasses(connection, passed, passes, reading, changes);
      };
      if (options.record ?? true) await recordCheckResults(connection, results, now, recordAll, options.retentionDays);
      return results;
    });
  } finally {
    if (options.instance === undefined) instance.closeSync();
  }
}

/** Whether `test` can read only what changed since its last pass: a declared test, or a custom test with keys. */
function readsChanges(test: PlannedTest): boolean {
  return test.declaration !== undefined || test.keys !== undefined;
}

/** A test that runs a query: over whole tables, or over what changed since its last pass. */
interface QueryPlan {
  test: PlannedTest;
  changedOnly: ChangedRowsQuery | undefined;
}

/**
 * The plans in groups, in their order: the tests that read the same changed rows of one table
 * (two or more) together, each other test alone.
 */
function sharingChangedRows(plans: readonly QueryPlan[]): QueryPlan[][] {
  const byRows = new Map<string, QueryPlan[]>();
  for (const plan of plans) {
    const rows = plan.changedOnly?.shared?.rows.name;
    if (rows !== undefined) byRows.set(rows, [...(byRows.get(rows) ?? []), plan]);
  }
  const grouped = new Set<QueryPlan>();
  const groups: QueryPlan[][] = [];
  for (const plan of plans) {
    if (grouped.has(plan)) continue;
    const rows = plan.changedOnly?.shared?.rows.name;
    const group = rows === undefined || byRows.get(rows)!.length < 2 ? [plan] : byRows.get(rows)!;
    for (const member of group) grouped.add(member);
    groups.push(group);
  }
  return groups;
}

/**
 * Runs a group's tests on one connection. Tests sharing changed rows count their failing rows in
 * a temporary table of the columns they judge, made once (each test otherwise scans the whole
 * table for its changed keys); a sample of failing rows is read as a test alone reads it, with
 * every column. Should the table fail, each test picks its rows by its own join.
 */
async function runGroup(connection: DuckDBConnection, group: readonly QueryPlan[], now: Date, sampleSize: (test: PlannedTest) => number): Promise<Map<QueryPlan, TestResult>> {
  const rows = group.length > 1 ? group[0]!.changedOnly?.shared?.rows : undefined;
  const columns = new Map(group.flatMap((plan) => plan.changedOnly?.shared?.rows.columns ?? []).map((column) => [column.toLowerCase(), column]));
  const materialized =
    rows !== undefined &&
    (await connection.run(`create or replace temp table ${rows.name} as\nselect ${[...columns.values()].map((column) => `t.${quoteIdent(column)}`).join(', ')}\nfrom ${rows.from}`).then(
      () => true,
      () => false,
    ));
  const results = new Map<QueryPlan, TestResult>();
  try {
    for (const plan of group) {
      const { test, changedOnly } = plan;
      const shared = materialized ? changedOnly?.shared : undefined;
      const sql = shared?.sql ?? changedOnly?.sql;
      const result = await runTest(connection, sql === undefined ? test : { ...test, sql }, now, sampleSize(test), shared && changedOnly!.sql);
      results.set(plan, sql === undefined ? result : { ...result, changedRowsOnly: true as const });
    }
  } finally {
    if (materialized) await connection.run(`drop table if exists temp.main.${rows!.name}`).catch(() => undefined);
  }
  return results;
}

/** What every result of `test` says of it, whatever its outcome. */
function resultOf(test: PlannedTest): Pick<TestResult, 'name' | 'kind' | 'target' | 'severity' | 'show'> {
  return { name: test.name, kind: test.kind, ...(test.target ? { target: test.target } : {}), severity: test.severity, ...(test.show ? { show: test.show } : {}) };
}

/** A test that could not run, and why. */
function brokenResult(test: PlannedTest, message: string, seconds: number, cause?: unknown): TestResult {
  const error = new FanlakeError(MODEL_ERROR_CODES.testBroken, `${test.name}: ${message}`, { context: { model: test.target }, ...(cause === undefined ? {} : { cause }) });
  return { ...resultOf(test), status: 'error', failures: 0, sample: [], seconds, message, error };
}

/**
 * A test that reads a table the warehouse lacks: an error that says what to do, one line, where
 * DuckDB's own would quote the test's SQL around "does not exist" (a build that failed left every
 * test of every model after it so).
 */
function notInWarehouse(test: PlannedTest, relation: string): TestResult {
  return brokenResult(test, `${relation} is not in the warehouse: ${relation.startsWith(`${SOURCE_SCHEMA}.`) ? 'extract and load it first' : 'its build failed or has not run (fanlake build)'}`, 0);
}

/** A test's last result, repeated: nothing it reads changed since. */
function carried(test: PlannedTest, before: LastCheck): TestResult {
  const result = before.result as Pick<TestResult, 'status' | 'severity' | 'failures' | 'sample' | 'message'> & Record<string, Json>;
  const error = result.status === 'error' ? new FanlakeError(MODEL_ERROR_CODES.testBroken, `${test.name}: ${result.message ?? 'could not run'}`, { context: { model: test.target } }) : undefined;
  return {
    ...resultOf(test),
    // the severity it was judged at then (freshness: the threshold it crossed)
    severity: result.severity,
    status: result.status,
    failures: Number(result.failures),
    sample: result.sample ?? [],
    seconds: 0,
    ...(result.message ? { message: String(result.message) } : {}),
    ...(error ? { error } : {}),
    carriedFrom: { checkRunId: before.checkRunId, checkedAt: before.checkedAt },
  };
}

/** What is kept of a result to carry it later. */
function storable(result: TestResult): Record<string, Json> {
  return { status: result.status, severity: result.severity, failures: result.failures, sample: result.sample, ...(result.message ? { message: result.message } : {}) };
}

/** `sampleSql`: where the failing rows' sample is read, when not from `test.sql` (which then only counts them). */
async function runTest(connection: DuckDBConnection, test: PlannedTest, now: Date, sampleSize: number, sampleSql?: string): Promise<TestResult> {
  const started = performance.now();
  const base = resultOf(test);
  const seconds = () => Math.round(performance.now() - started) / 1000;
  try {
    if ('freshness' in test) return { ...base, ...(await measureFreshness(connection, test.target!, test.freshness, now)), seconds: seconds() };
    // Counted first, so DuckDB reads only the columns the test judges: most tests pass, and a
    // failing row's every column (a view's values of both records of a link) is read for the sample only.
    const [counted] = await queryRows(connection, `select count(*) as failures from (\n${test.sql}\n) as failing`);
    const failures = Number(counted?.failures ?? 0);
    const sample = failures === 0 ? [] : await queryRows(connection, `select * from (\n${sampleSql ?? test.sql}\n) as failing limit ${sampleSize}`);
    return { ...base, status: failures > 0 ? 'fail' : 'pass', failures, sample, seconds: seconds() };
  } catch (cause) {
    return brokenResult(test, cause instanceof Error ? cause.message : String(cause), seconds(), cause);
  }
}

async function measureFreshness(
  connection: DuckDBConnection,
  relation: string,
  freshness: Freshness,
  now: Date,
): Promise<Pick<TestResult, 'status' | 'severity' | 'failures' | 'sample' | 'message' | 'freshness'>> {
  const table = relation.split('.').map(quoteIdent).join('.');
  const field = quoteIdent(freshness.field);
  const [row] = await queryRows(
    connection,
    `select max(try_cast(${field} as timestamptz))::varchar as latest, epoch(max(try_cast(${field} as timestamptz))) as latest_epoch from ${table}`,
  );
  const limits = [
    freshness.warnAfterHours === undefined ? '' : `warn after ${freshness.warnAfterHours} h`,
    freshness.errorAfterHours === undefined ? '' : `error after ${freshness.errorAfterHours} h`,
  ].filter(Boolean).join(', ');
  const worst: Severity = freshness.errorAfterHours === undefined ? 'warn' : 'error';
  const thresholds = { warnAfterHours: freshness.warnAfterHours, errorAfterHours: freshness.errorAfterHours };
  if (row?.latest_epoch === null || row?.latest_epoch === undefined) {
    return { status: 'fail', severity: worst, failures: 1, sample: [], message: `no ${freshness.field} values in ${relation} (${limits})`, freshness: thresholds };
  }
  // A raw table's `_extracted_at` measures when it was last read, not when a record last changed.
  const newestValue = Number(row.latest_epoch);
  const lastRead = await lastReadEpoch(connection, relation, freshness.field);
  const latestEpoch = lastRead !== undefined && lastRead > newestValue ? lastRead : newestValue;
  const hoursSince = (epoch: number) => (now.getTime() / 1000 - epoch) / 3600;
  const ageHours = hoursSince(latestEpoch);
  const latestAt = new Date(latestEpoch * 1000).toISOString();
  const sample = [{ latest: latestEpoch === newestValue ? (row.latest as Json) : latestAt, age_hours: Math.round(ageHours * 10) / 10 }];
  const message =
    latestEpoch === newestValue
      ? `latest ${freshness.field} is ${ageHours.toFixed(1)} h old (${limits})`
      : `last read from the source ${ageHours.toFixed(1)} h ago, latest ${freshness.field} is ${hoursSince(newestValue).toFixed(1)} h old (${limits})`;
  const measured = { ...thresholds, latestAt, ageHours };
  if (freshness.errorAfterHours !== undefined && ageHours > freshness.errorAfterHours) return { status: 'fail', severity: 'error', failures: 1, sample, message, freshness: measured };
  if (freshness.warnAfterHours !== undefined && ageHours > freshness.warnAfterHours) return { status: 'fail', severity: 'warn', failures: 1, sample, message, freshness: measured };
  return { status: 'pass', severity: worst, failures: 0, sample, message, freshness: measured };
}

/**
 * Optional sources missing from the warehouse (`present`: its relations) and every model that
 * reads them, transitively. Only models missing from the warehouse are parsed: a model there was
 * built, so it rests on nothing missing, and parsing every model's SQL cost a quarter of a
 * second of every check.
 */
async function restingOnMissingOptionalSources(project: ModelProject, present: ReadonlySet<string>, connection: DuckDBConnection): Promise<Set<string>> {
  const optional = project.sources.filter((source) => source.optional).map((source) => source.relation.toLowerCase());
  if (optional.length === 0) return new Set();
  const missing = optional.filter((relation) => !present.has(relation));
  if (missing.length === 0) return new Set();
  const absent = project.models.filter((model) => !present.has(model.relation.toLowerCase()));
  const parsed = await parseSelects(connection, absent.map((model) => model.sql));
  const reads = absent.map((model, at) => {
    const select = parsed[at]!;
    return { relation: model.relation.toLowerCase(), reads: select.ok ? select.references.map((ref) => `${ref.schema}.${ref.table}`) : [] };
  });
  const unavailable = new Set(missing);
  // to a fixpoint: a chain of absent models is found whatever their order
  for (let grew = true; grew; ) {
    grew = false;
    for (const { relation, reads: read } of reads) {
      if (unavailable.has(relation) || !read.some((parent) => unavailable.has(parent))) continue;
      unavailable.add(relation);
      grew = true;
    }
  }
  return unavailable;
}
