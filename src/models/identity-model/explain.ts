import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows } from '../../core/duckdb.js';
import { UsageError } from '../../core/errors.js';
import { COMPARISONS, type ComparisonName } from './config.js';
import { firstNamesApartCall } from './macros.js';

/** One comparison of a pair: its level, its weight and what each record holds. */
export interface ExplainedComparison {
  comparison: ComparisonName;
  level: string;
  weight: number;
  values: [string | null, string | null];
}

/** Why two records are, or are not, one fan (`fanlake identity explain`). */
export interface PairExplanation {
  records: [string, string];
  modelVersion: number;
  priorWeight: number | null;
  comparisons: ExplainedComparison[];
  /** A level that vetoes a link (two first names): the pair never links, whatever the weights. */
  vetoedBy: string[];
  matchWeight: number | null;
  matchProbability: number | null;
  linkThreshold: number;
  reviewThreshold: number;
  /** The blocking rules whose values both share, with how many records hold the value (over its cap, the block compares nobody). */
  /** The blocks the two share; crowded: compares nobody (on more records than its cap when the model in force froze it, or three times its cap now). */
  blocks: { rule: string; records: number; cap: number; crowded: boolean }[];
  /** Whether the cheap tests that pick a block's pairs worth comparing pass (macros.identity_worth_comparing); a pair they fail is never compared. */
  worthComparing: boolean;
  fans: [string, string];
  /** How the two are linked directly, if they are (int_identity_edges), or an override. */
  directLink: string | null;
  /** Whether the model's score was read from int_identity_pairs (a candidate pair at or above the review threshold); else computed here. */
  stored: boolean;
  /** The model links the pair (int_identity_pairs is_link); null when no score was stored. */
  modelLinks: boolean | null;
  /** How common the agreeing names are (the share of people carrying them), which weighs an exact name. */
  termFrequencies: { first_name: number | null; last_name: number | null };
  /** A model link left out as ambiguous (int_identity_ambiguous_links): the record linked to two the model tells apart. */
  ambiguousWith: string[];
  /** A model link cut because its component held two people (int_identity_clusters; chain_cut in marts.fan_identity_review). */
  chainCut: boolean;
  /**
   * The birth-date rule in force (macros.identity_birth_dates_tell_apart): whether birth dates
   * different beyond every slip are two people, the model's weight of that level (null: none
   * trained) and the ambiguity weight it is held against; differ: this pair's are.
   */
  birthDates: { differ: boolean; tellApart: boolean; differentWeight: number | null; ambiguityWeight: number };
  /**
   * The first-name rule in force (macros.identity_first_names_apart): whether unrelated first
   * names alone are two people (tellApart: the model weighs them at least the ambiguity weight
   * against), the model's weight of that level (null: none trained); unrelated: this pair's are;
   * apart: the rule holds them apart (always where tellApart, else only in a household's case: one
   * e-mail or phone, or one surname with no other birth date or address).
   */
  firstNames: { unrelated: boolean; apart: boolean; tellApart: boolean; differentWeight: number | null };
}

/**
 * Compares two records as the identity model does (macros.identity_levels and the stored
 * weights), whether or not a blocking rule made them a candidate pair, and says where they
 * stand: the fan of each, a direct link, the blocks they share.
 *
 * @throws UsageError when a record key is unknown.
 */
export async function explainPair(connection: DuckDBConnection, recordA: string, recordB: string): Promise<PairExplanation> {
  const known = await queryRows(connection, 'select record_key from intermediate.int_identity_comparables where record_key in ($1, $2)', [recordA, recordB]);
  for (const record of [recordA, recordB]) {
    if (!known.some((row) => row.record_key === record)) {
      throw new UsageError(`${record} is no record of identity resolution; a record key is system:record_id, as marts.fan_identity_review writes it (ticketing_user:101)`);
    }
  }
  const names = Object.keys(COMPARISONS) as ComparisonName[];
  const [row] = await queryRows(
    connection,
    `with
     lower_record as (select * from intermediate.int_identity_comparables where record_key = $1),
     higher_record as (select * from intermediate.int_identity_comparables where record_key = $2),
     level_names as (select * from macros.identity_level_names()),
     compared as (
         select macros.identity_levels(lower_record, higher_record) as levels, lower_record, higher_record
         from lower_record cross join higher_record
     )
     select
         compared.levels,
         compared.levels.first_name_tf as first_name_tf,
         compared.levels.last_name_tf as last_name_tf,
         macros.identity_model_version() as model_version,
         macros.identity_prior_weight() as prior_weight,
         macros.identity_link_threshold() as link_threshold,
         macros.identity_review_threshold() as review_threshold,
         macros.identity_birth_dates_tell_apart() as birth_dates_tell_apart,
         macros.identity_ambiguity_weight() as ambiguity_weight,
         model.birth_date_weights[len(level_names.birth_date)] as birth_date_different_weight,
         compared.levels.birth_date = len(level_names.birth_date) - 1 as birth_dates_differ,
         macros.identity_first_names_tell_apart() as first_names_tell_apart,
         model.first_name_weights[len(level_names.first_name)] as first_name_different_weight,
         compared.levels.first_name = len(level_names.first_name) - 1 as first_names_unrelated,
         ${firstNamesApartCall((name) => `compared.levels.${name}`)} as first_names_apart,
         ${names.map((name) => `level_names.${name}[compared.levels.${name} + 1] as ${name}_level`).join(', ')},
         macros.identity_name_weight(model.first_name_weights, compared.levels.first_name, model.first_name_tf_level, model.first_name_tf_m, compared.levels.first_name_tf) as first_name_weight,
         macros.identity_name_weight(model.last_name_weights, compared.levels.last_name, model.last_name_tf_level, model.last_name_tf_m, compared.levels.last_name_tf) as last_name_weight,
         ${names.filter((name) => COMPARISONS[name] !== 'name').map((name) => `model.${name}_weights[compared.levels.${name} + 1] as ${name}_weight`).join(', ')},
         ${names.map((name) => `(model.${name}_vetoes >> compared.levels.${name}) & 1 = 1 as ${name}_vetoed`).join(', ')},
         [compared.lower_record.first_name_spelling, ${rightName('first_name')}] as first_name_values,
         [compared.lower_record.last_name_spelling, ${rightName('last_name')}] as last_name_values,
         [cast(compared.lower_record.birth_date_key as varchar), cast(compared.higher_record.birth_date_key as varchar)] as birth_date_values,
         [compared.lower_record.email, compared.higher_record.email] as email_values,
         [compared.lower_record.phone_key, compared.higher_record.phone_key] as phone_values,
         [concat_ws(', ', compared.lower_record.street_key, compared.lower_record.postcode_key, compared.lower_record.city_key),
          concat_ws(', ', compared.higher_record.street_key, compared.higher_record.postcode_key, compared.higher_record.city_key)] as address_values,
     from compared
     cross join level_names
     cross join macros.identity_model_weights() as model`,
    [recordA, recordB],
  );
  const comparisons: ExplainedComparison[] = [];
  const vetoedBy: string[] = [];
  for (const name of names) {
    const level = row![`${name}_level`];
    if (level === null || level === undefined) continue;
    const weight = Number(row![`${name}_weight`] ?? 0);
    const values = row![`${name}_values`] as [string | null, string | null];
    comparisons.push({ comparison: name, level: String(level), weight, values: [values[0] || null, values[1] || null] });
    if (row![`${name}_vetoed`] === true || (name === 'first_name' && row!.first_names_apart === true)) vetoedBy.push(`${name} ${String(level)}`);
  }
  const priorWeight = row!.prior_weight === null ? null : Number(row!.prior_weight);
  let matchWeight = priorWeight === null ? null : priorWeight + comparisons.reduce((sum, compared) => sum + compared.weight, 0);
  let matchProbability = matchWeight === null ? null : 1 / (1 + 2 ** -matchWeight);

  // The score build stored, where the pair was a candidate at or above the review threshold: the
  // figures fan_identity_links was made from, not a second computation of them.
  const [stored] = await queryRows(
    connection,
    `select ${names.map((name) => `${name}_weight`).join(', ')}, match_weight, match_probability, is_link
     from intermediate.int_identity_pairs where from_key = least($1, $2) and to_key = greatest($1, $2)`,
    [recordA, recordB],
  );
  if (stored) {
    for (const compared of comparisons) compared.weight = Number(stored[`${compared.comparison}_weight`] ?? 0);
    matchWeight = Number(stored.match_weight);
    matchProbability = Number(stored.match_probability);
  }

  const blocks = await queryRows(
    connection,
    `with
     shared as (
         select unnest(list_intersect(macros.identity_block_keys(lower_record), macros.identity_block_keys(higher_record))) as block
         from intermediate.int_identity_comparables as lower_record, intermediate.int_identity_comparables as higher_record
         where lower_record.record_key = $1 and higher_record.record_key = $2
     ),
     held as (
         select block, count(*) as records
         from (select {'rule_index': rule_index, 'block_value': block_value} as block from macros.identity_record_block_keys('intermediate.int_identity_comparables'))
         where block in (select block from shared)
         group by block
     )
     select rules.rule, held.records, rules.cap,
         held.block.block_value in (select block_value from macros.identity_model_crowded_blocks()) or held.records > 3 * rules.cap as crowded
     from held
     inner join macros.identity_blocking_rules() as rules on rules.rule_index = held.block.rule_index
     where rules.predict
     order by rules.rule_index`,
    [recordA, recordB],
  );
  const [worth] = await queryRows(
    connection,
    `with asked as (
         select lower_record.record_number as lower_number, higher_record.record_number as higher_number
         from intermediate.int_identity_comparables as lower_record, intermediate.int_identity_comparables as higher_record
         where lower_record.record_key = $1 and higher_record.record_key = $2
     )
     select count(*) > 0 as worth from macros.identity_worth_comparing('asked', 'intermediate.int_identity_comparables')`,
    [recordA, recordB],
  );
  const status = await queryRows(
    connection,
    `select
         (select fan_id from intermediate.int_identity_clusters where record_key = $1) as fan_a,
         (select fan_id from intermediate.int_identity_clusters where record_key = $2) as fan_b,
         (select match_rule from intermediate.int_identity_edges where from_key = least($1, $2) and to_key = greatest($1, $2)) as edge,
         (select decision from macros.identity_overrides() where record_key_a = least($1, $2) and record_key_b = greatest($1, $2)) as decision,
         (select rule_rank from intermediate.int_identity_edges where from_key = least($1, $2) and to_key = greatest($1, $2)) as edge_rank,
         (select list(distinct apart_from_key || ' and ' || apart_to_key order by apart_from_key || ' and ' || apart_to_key) from intermediate.int_identity_ambiguous_links
             where from_key = least($1, $2) and to_key = greatest($1, $2)) as ambiguous_with`,
    [recordA, recordB],
  );
  const { fan_a: fanA, fan_b: fanB, edge, decision, edge_rank: edgeRank, ambiguous_with: ambiguousWith } = status[0]!;
  return {
    records: [recordA, recordB],
    modelVersion: Number(row!.model_version),
    priorWeight,
    comparisons,
    vetoedBy,
    matchWeight,
    matchProbability,
    linkThreshold: Number(row!.link_threshold),
    reviewThreshold: Number(row!.review_threshold),
    blocks: blocks.map((block) => ({ rule: String(block.rule), records: Number(block.records), cap: Number(block.cap), crowded: block.crowded === true })),
    worthComparing: worth?.worth === true,
    fans: [String(fanA ?? ''), String(fanB ?? '')],
    directLink: decision ? `override (${String(decision)})` : edge ? String(edge) : null,
    stored: stored !== undefined,
    modelLinks: stored ? stored.is_link === true : null,
    termFrequencies: { first_name: nullableNumber(row!.first_name_tf), last_name: nullableNumber(row!.last_name_tf) },
    ambiguousWith: ((ambiguousWith as string[] | null) ?? []).map(String),
    // a model link (rank 3) whose two records ended in two fans, with no analyst's decision between them
    chainCut: Number(edgeRank) === 3 && fanA !== fanB && !decision,
    birthDates: {
      differ: row!.birth_dates_differ === true,
      tellApart: row!.birth_dates_tell_apart === true,
      differentWeight: nullableNumber(row!.birth_date_different_weight),
      ambiguityWeight: Number(row!.ambiguity_weight),
    },
    firstNames: {
      unrelated: row!.first_names_unrelated === true,
      apart: row!.first_names_apart === true,
      tellApart: row!.first_names_tell_apart === true,
      differentWeight: nullableNumber(row!.first_name_different_weight),
    },
  };
}

/** The first-name rule applied to a pair whose first names are unrelated (macros.identity_first_names_apart). */
function firstNameRule(firstNames: PairExplanation['firstNames'], ambiguityWeight: number): string {
  const weighed = firstNames.differentWeight === null ? 'no trained model weighs them yet' : `the model weighs unrelated first names ${firstNames.differentWeight.toFixed(2)} bits`;
  if (firstNames.tellApart) return `first names unrelated: two people (${weighed}, at least the ambiguity weight ${ambiguityWeight}): no fan holds both but through a hard link or an analyst`;
  return firstNames.apart
    ? `first names unrelated in a household's case (one e-mail or phone, or one surname with no other birth date or address: partners, twins, siblings): two people whatever else agrees (${weighed}, weaker than the ambiguity weight ${ambiguityWeight}, so elsewhere they are evidence): no fan holds both but through a hard link (an externalId) or an analyst`
    : `first names unrelated: evidence the model weighs, not two people (${weighed}, weaker than the ambiguity weight ${ambiguityWeight}; no e-mail or phone in common, nor one surname with no other birth date or address, as a household's would be)`;
}

/** The birth-date rule applied to a pair whose birth dates differ (macros.identity_birth_dates_tell_apart). */
function birthDateRule(birthDates: PairExplanation['birthDates']): string {
  const weighed = birthDates.differentWeight === null ? 'no trained model weighs a difference yet' : `the model weighs a difference ${birthDates.differentWeight.toFixed(2)} bits`;
  return birthDates.tellApart
    ? `birth dates different: two people beyond any slip (${weighed}, at least the ambiguity weight ${birthDates.ambiguityWeight}): no fan holds both but through a hard link or an analyst`
    : `birth dates different: evidence the model weighs, not two people (${weighed}, weaker than the ambiguity weight ${birthDates.ambiguityWeight}: the club's records do not keep birth dates well enough)`;
}

function nullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/** r's name as compared: crosswise when the levels say so. */
function rightName(name: 'first_name' | 'last_name'): string {
  const other = name === 'first_name' ? 'last_name' : 'first_name';
  return `case when compared.levels.crossed then compared.higher_record.${other}_spelling else compared.higher_record.${name}_spelling end`;
}

/** The explanation as lines of text: a waterfall of weights, then where the pair stands. */
export function formatExplanation(explained: PairExplanation): string {
  const [a, b] = explained.records;
  const sign = (weight: number) => `${weight >= 0 ? '+' : ''}${weight.toFixed(2)}`;
  const rows: string[][] = [['comparison', 'level', 'weight', a, b]];
  if (explained.priorWeight !== null) rows.push(['prior', '', sign(explained.priorWeight), '', '']);
  for (const compared of explained.comparisons) {
    rows.push([compared.comparison, compared.level, compared.level === 'missing' ? '0' : sign(compared.weight), compared.values[0] ?? '-', compared.values[1] ?? '-']);
  }
  if (explained.matchWeight !== null) rows.push(['total', '', sign(explained.matchWeight), '', '']);
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd());
  lines.splice(1, 0, widths.map((width) => '-'.repeat(width)).join('  '));
  const out = [`${a} and ${b}, identity model version ${explained.modelVersion || '(none trained yet)'}`, '', ...lines, ''];
  const frequencies = (['first_name', 'last_name'] as const)
    .filter((name) => explained.termFrequencies[name] !== null && explained.comparisons.some((compared) => compared.comparison === name && compared.level === 'exact'))
    .map((name) => `${name} ${explained.termFrequencies[name]!.toPrecision(3)} of people`);
  if (frequencies.length > 0) out.push(`the agreeing names are carried by ${frequencies.join(', ')} (a rarer name weighs more)`);
  if (explained.matchProbability !== null) {
    const verdict =
      explained.vetoedBy.length > 0
        ? `never linked by the model: ${explained.vetoedBy.join(', ')} vetoes it`
        : !explained.stored
          ? `no score stored: under the review threshold ${explained.reviewThreshold}${explained.blocks.length === 0 || !explained.worthComparing ? ' or never a candidate pair' : ''}, not linked`
          : explained.modelLinks
            ? `at or above the link threshold ${explained.linkThreshold}: the model links them`
            : explained.matchProbability >= explained.reviewThreshold
              ? `in the review band (${explained.reviewThreshold} to ${explained.linkThreshold}): listed for review`
              : `under the review threshold ${explained.reviewThreshold}: not linked`;
    out.push(`match probability ${explained.matchProbability.toPrecision(4)}${explained.stored ? ' (as build stored it)' : ' (computed here)'}, ${verdict}`);
  }
  if (explained.ambiguousWith.length > 0) out.push(`the model's link is left out as ambiguous: a record of it is linked to ${explained.ambiguousWith.join('; ')}, which the model tells apart (review: ambiguous_link)`);
  if (explained.firstNames.unrelated) out.push(firstNameRule(explained.firstNames, explained.birthDates.ambiguityWeight));
  if (explained.birthDates.differ) out.push(birthDateRule(explained.birthDates));
  if (explained.chainCut) {
    const firstNames = explained.firstNames.tellApart ? 'first names unrelated' : "first names unrelated in a household's case";
    const birthDates = explained.birthDates.tellApart ? 'birth dates different beyond any slip, ' : '';
    out.push(`the model's link was cut: their component held two people (${firstNames}, ${birthDates}or two profiles whose people agree on names a slip apart), and it was among the weakest links between them (review: chain_cut)`);
  }
  const compared = explained.blocks.filter((block) => !block.crowded);
  out.push(
    explained.blocks.length === 0
      ? 'no blocking rule makes them a candidate pair: the model never compares them (the figures above are what it would say)'
      : `they share the blocks of ${explained.blocks.map((block) => `${block.rule} (${block.records} records${block.crowded ? `, crowded (over its cap of ${block.cap} when the model in force was put in force, or three times it now): compares nobody` : ''})`).join(', ')}${compared.length === 0 ? ': each crowded, so the model never compares them' : explained.worthComparing ? '' : `, but nothing cheap says they may be one person (names unrelated${explained.birthDates.tellApart ? ' or birth dates different' : ''}, and fewer than three of birth date, initials, a name word and address in common${explained.firstNames.tellApart ? '' : ', nor one street and birth date with last names alike'}), so the model never compares them`}`,
  );
  out.push(
    explained.fans[0] === explained.fans[1]
      ? `one fan, ${explained.fans[0]}${explained.directLink ? `, linked directly by ${explained.directLink}` : ', through other records'}`
      : `two fans, ${explained.fans[0]} and ${explained.fans[1]}${explained.directLink ? ` (${explained.directLink})` : ''}`,
  );
  return out.join('\n');
}
