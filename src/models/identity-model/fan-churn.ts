import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows, quoteLiteral } from '../../core/duckdb.js';
import { ensureMetaSchema } from '../../warehouse/meta-schema.js';

/** Where each build's fan_id churn is kept (declared in warehouse/meta-schema.ts). */
export const CHURN_TABLE = 'meta.identity_fan_churn';

/** How the fans of two states of the records compare, by record key. */
export interface FanChurn {
  fansBefore: number;
  fansAfter: number;
  recordsBefore: number;
  recordsAfter: number;
  /** Records on both sides whose fan_id differs. */
  recordsMoved: number;
  /** Fans after that hold records of more than one fan before. */
  fansMerged: number;
  /** Fans before whose records went to more than one fan after. */
  fansSplit: number;
  /** A few moved records, smallest record key first. */
  examples: MovedRecord[];
}

export interface MovedRecord {
  recordKey: string;
  fanBefore: string;
  fanAfter: string;
  /** `merge`: its fan after took in another fan's records; `split`: its fan before was cut; both, or `renamed` (the fan lost the record it was named after). */
  how: string;
}

/**
 * The CTEs comparing two relations of `(record_key, fan_id)`: `pairs` (each record on both
 * sides with its fan before and after), `merged` (fans after holding records of several fans
 * before), `split` (fans before whose records went to several fans after) and `moved` (each
 * record whose fan_id differs, and how). `changed`: a relation of the record keys that may
 * differ (every other record has one fan on both sides); the pairs are then the records of
 * their fans (theirs among them), which is all a merge or a split can involve, not every record.
 */
function comparisonCtes(before: string, after: string, changed?: string): string {
  const sides =
    changed === undefined
      ? { before, after }
      : { before: 'before_part', after: 'after_part' };
  const parts =
    changed === undefined
      ? ''
      : `touched as (
        select fan_id from ${before} where record_key in (select record_key from ${changed})
        union
        select fan_id from ${after} where record_key in (select record_key from ${changed})
    ),
    before_part as (
        select record_key, fan_id from ${before} where fan_id in (select fan_id from touched)
    ),
    after_part as (
        select record_key, fan_id from ${after} where fan_id in (select fan_id from touched)
    ),
    `;
  return `${parts}pairs as (
        select before_fans.record_key, before_fans.fan_id as fan_before, after_fans.fan_id as fan_after
        from ${sides.before} as before_fans
        inner join ${sides.after} as after_fans
            on after_fans.record_key = before_fans.record_key
    ),
    -- only a fan a moved record leaves or joins can be merged or split: the grouping reads those
    -- fans' records, not every record (a quiet build moves a handful)
    changed as (
        select * from pairs where fan_before <> fan_after
    ),
    merged as (
        select fan_after from pairs
        where fan_after in (select fan_after from changed)
        group by fan_after having count(distinct fan_before) > 1
    ),
    split as (
        select fan_before from pairs
        where fan_before in (select fan_before from changed)
        group by fan_before having count(distinct fan_after) > 1
    ),
    moved as (
        select
            pairs.record_key,
            pairs.fan_before,
            pairs.fan_after,
            case
                when merged.fan_after is not null and split.fan_before is not null then 'merge and split'
                when merged.fan_after is not null then 'merge'
                when split.fan_before is not null then 'split'
                else 'renamed'
            end as how,
        from pairs
        left join merged
            on merged.fan_after = pairs.fan_after
        left join split
            on split.fan_before = pairs.fan_before
        where pairs.fan_before <> pairs.fan_after
    )`;
}

/** Every record whose fan_id differs between `before` and `after`, as a query: record_key, fan_before, fan_after, how. */
export function movedRecordsSql(before: string, after: string, changed?: string): string {
  return `with ${comparisonCtes(before, after, changed)} select * from moved`;
}

/**
 * Compares the fans of `before` and `after` (relations with record_key and fan_id). `changed`:
 * a relation of the record keys that may differ between them, when the caller knows them (a
 * build's merge of the fans); the counts are the same, found without joining every record.
 */
export async function compareFans(connection: DuckDBConnection, before: string, after: string, examples = 5, changed?: string): Promise<FanChurn> {
  const [row] = await queryRows(
    connection,
    `with ${comparisonCtes(before, after, changed)},
    fans_before as (select count(distinct fan_id) as n from ${before})
    select
        (select n from fans_before) as fans_before,
        -- told what changed: only the fans of those records can come or go (a second count of every fan cost 25-55 ms)
        ${changed === undefined ? `(select count(distinct fan_id) from ${after})` : '(select n from fans_before) - (select count(distinct fan_id) from before_part) + (select count(distinct fan_id) from after_part)'} as fans_after,
        (select count(*) from ${before}) as records_before,
        (select count(*) from ${after}) as records_after,
        (select count(*) from moved) as records_moved,
        (select count(*) from merged) as fans_merged,
        (select count(*) from split) as fans_split`,
  );
  const listed = examples > 0 ? await queryRows(connection, `${movedRecordsSql(before, after, changed)} order by record_key limit ${Number(examples)}`) : [];
  return {
    fansBefore: Number(row!.fans_before),
    fansAfter: Number(row!.fans_after),
    recordsBefore: Number(row!.records_before),
    recordsAfter: Number(row!.records_after),
    recordsMoved: Number(row!.records_moved),
    fansMerged: Number(row!.fans_merged),
    fansSplit: Number(row!.fans_split),
    examples: listed.map((moved) => ({ recordKey: String(moved.record_key), fanBefore: String(moved.fan_before), fanAfter: String(moved.fan_after), how: String(moved.how) })),
  };
}

/** The churn of fans a build left as they were: nobody moved, counted once. */
export async function unchangedFans(connection: DuckDBConnection, fans: string): Promise<FanChurn> {
  const [row] = await queryRows(connection, `select count(distinct fan_id) as fans, count(*) as records from ${fans}`);
  const [fanCount, records] = [Number(row!.fans), Number(row!.records)];
  return { fansBefore: fanCount, fansAfter: fanCount, recordsBefore: records, recordsAfter: records, recordsMoved: 0, fansMerged: 0, fansSplit: 0, examples: [] };
}

/** The share of the records before whose fan_id moved (0 without records). */
export function movedShare(churn: Pick<FanChurn, 'recordsMoved' | 'recordsBefore'>): number {
  return churn.recordsBefore === 0 ? 0 : churn.recordsMoved / churn.recordsBefore;
}

/** One build's churn as it is recorded. */
export interface RecordedChurn extends FanChurn {
  buildId: string;
  modelVersion: number;
  /** This build is the first to build the fans under its model version. */
  modelApplied: boolean;
  warnShare: number;
  /** Why a retrain is due under the model in force; undefined when none is. */
  retrainDue?: string;
}

/** Appends a build's churn to meta.identity_fan_churn; returns it with whether its model version is new to the fans. */
export async function recordChurn(connection: DuckDBConnection, churn: Omit<RecordedChurn, 'modelApplied'>): Promise<RecordedChurn> {
  await ensureMetaSchema(connection);
  const [last] = await queryRows(connection, `select model_version from ${CHURN_TABLE} order by built_at desc limit 1`);
  const modelApplied = last === undefined || Number(last.model_version) !== churn.modelVersion;
  await connection.run(
    `insert into ${CHURN_TABLE} values (${quoteLiteral(churn.buildId)}, now(), ${churn.modelVersion}, ${modelApplied}, ${churn.fansBefore}, ${churn.fansAfter},
       ${churn.recordsBefore}, ${churn.recordsAfter}, ${churn.recordsMoved}, ${churn.fansMerged}, ${churn.fansSplit}, ${movedShare(churn)}, ${churn.warnShare},
       ${churn.retrainDue === undefined ? 'null' : quoteLiteral(churn.retrainDue)})`,
  );
  return { ...churn, modelApplied };
}

/** The last build's churn, for `status` and `doctor`; undefined when none was recorded. Safe for readers. */
export async function readLastChurn(connection: DuckDBConnection): Promise<(Omit<RecordedChurn, 'examples'> & { builtAt: string }) | undefined> {
  const exists = await queryRows(connection, `select 1 from duckdb_tables() where schema_name = 'meta' and table_name = 'identity_fan_churn'`);
  if (exists.length === 0) return undefined;
  const [row] = await queryRows(connection, `select *, cast(built_at as varchar) as built_at_text from ${CHURN_TABLE} order by built_at desc limit 1`);
  if (!row) return undefined;
  return {
    buildId: String(row.build_id),
    builtAt: String(row.built_at_text),
    modelVersion: Number(row.model_version),
    modelApplied: Boolean(row.model_applied),
    fansBefore: Number(row.fans_before),
    fansAfter: Number(row.fans_after),
    recordsBefore: Number(row.records_before),
    recordsAfter: Number(row.records_after),
    recordsMoved: Number(row.records_moved),
    fansMerged: Number(row.fans_merged),
    fansSplit: Number(row.fans_split),
    warnShare: Number(row.warn_share),
    ...(row.retrain_due === null ? {} : { retrainDue: String(row.retrain_due) }),
  };
}
