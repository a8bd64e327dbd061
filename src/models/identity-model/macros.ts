import { createHash } from 'node:crypto';
import { quoteLiteral } from '../../core/duckdb.js';
import { MACRO_SCHEMA } from '../discover-project.js';
import type { MacroDefinition } from '../discover-project.js';
import { COMPARISONS, type BlockingRule, type BlockKey, type ComparisonLevel, type ComparisonName, type IdentityModelConfig } from './config.js';
import { MODELS_TABLE, type StoredModel } from './store.js';
import { CROWDED_BLOCKS_TABLE, TERM_FREQUENCIES_TABLE } from './frozen-statistics.js';

/**
 * The identity model as DuckDB macros, written by `build` like the settings and the overrides
 * (see macros.ts): the models stay plain SQL, a shell on the warehouse computes what build did,
 * and a changed configuration, threshold or trained model is a changed macro, so exactly the
 * models that call it are built again.
 *
 * - `identity_levels(l, r)`: how two rows of `intermediate.int_identity_comparables` compare,
 *   one level index per comparison (0: missing on a side, no evidence either way) and the
 *   term frequencies of their names; `crossed` when first and last name were written in each
 *   other's fields on one side (the names are then compared crosswise).
 * - `identity_block_keys(r)`: the block values a row is compared within, one per blocking rule.
 * - `identity_blocking_rules()`, `identity_comparison_levels()`: the configuration as tables.
 * - `identity_model()`, `identity_model_version()`, `identity_prior_weight()`: the stored model.
 * - `identity_link_threshold()`, `identity_review_threshold()`: the settings.
 */
export interface IdentityThresholds {
  /** A pair at or above this match probability is one fan. */
  link: number;
  /** A pair from this probability up to the link threshold is listed for review. */
  review: number;
}

export const DEFAULT_IDENTITY_THRESHOLDS: IdentityThresholds = { link: 0.95, review: 0.5 };

const L = 'l';
const R = 'r';

/**
 * Whether the names of r are taken crosswise: each side's first name is alike the other's last
 * name (or one of the two is missing: a name written in the wrong field beside an empty one),
 * and the names agree much better that way round than as written (int_identity_records
 * already turns round a name written the wrong way by how often each word is a first or a last
 * name; this catches the rest, a slip in one of them or a missing one included).
 */
const CROSS_SIMILARITY = 0.8;
const CROSS_MARGIN = 0.2;
const jw = (a: string, b: string) => `coalesce(jaro_winkler_similarity(${L}.${a}_spelling, ${R}.${b}_spelling), 0)`;
// alike: Jaro-Winkler, or one edit apart (DuckDB's Jaro-Winkler sees no transposition in a name of
// three letters: Mai and Mia), the edits counted only where Jaro-Winkler does not settle it
const alikeOrMissing = (a: string, b: string) =>
  `case when ${L}.${a}_spelling is null or ${R}.${b}_spelling is null then true when ${jw(a, b)} >= ${CROSS_SIMILARITY} then true else damerau_levenshtein(${L}.${a}_spelling, ${R}.${b}_spelling) <= 1 end`;
// One `and`, which the CASE of identity_levels tests part by part, each part on the pairs the
// parts before it passed: a first letter in common crosswise first, so that nothing else is
// computed for the pairs without (Jaro-Winkler four times over every pair cost more than all the
// levels). NULL is not crossed.
const CROSSED = `(left(${L}.first_name_spelling, 1) = left(${R}.last_name_spelling, 1) or left(${L}.last_name_spelling, 1) = left(${R}.first_name_spelling, 1))
        and ${alikeOrMissing('first_name', 'last_name')} and ${alikeOrMissing('last_name', 'first_name')}
        and ${jw('first_name', 'last_name')} + ${jw('last_name', 'first_name')} > ${jw('first_name', 'first_name')} + ${jw('last_name', 'last_name')} + ${CROSS_MARGIN}`;

/**
 * Whether r's names are taken crosswise: the macro parameter `crossed` (identity_levels_oriented),
 * or known where the SQL is written out for one branch of identity_levels' CASE (the pair-levels
 * table macro), which then reads r's columns directly.
 */
type Crossed = 'crossed' | 'true' | 'false';

/** r's value of a name column, crosswise when `crossed`. */
function oriented(column: 'first_name' | 'last_name', suffix: string, crossed: Crossed = 'crossed'): string {
  const other = column === 'first_name' ? 'last_name' : 'first_name';
  if (crossed !== 'crossed') return `${R}.${crossed === 'true' ? other : column}_${suffix}`;
  return `case when crossed then ${R}.${other}_${suffix} else ${R}.${column}_${suffix} end`;
}

/** `not crossed`, as SQL. */
const notCrossed = (crossed: Crossed) => (crossed === 'crossed' ? 'not crossed' : crossed === 'true' ? 'false' : 'true');

/**
 * The SQL test of one level, over l and r (and `crossed` for names), for a WHEN of the
 * comparison's CASE, where NULL counts as false. Left bare, not in coalesce(..., false): DuckDB
 * then tests an `and` part by part, each part on the pairs the parts before it passed, where
 * inside a function it computes every part for every pair (letters_dropped would compute
 * damerau_levenshtein for every pair of names, not only for those its cheap tests let through).
 */
function testSql(level: ComparisonLevel, crossed: Crossed): string {
  const threshold = level.threshold ?? 0;
  const kind = COMPARISONS[level.comparison];
  if (level.test === 'else') return 'true';
  if (kind === 'name') {
    const name = level.comparison as 'first_name' | 'last_name';
    const left = `${L}.${name}_spelling`;
    const right = oriented(name, 'spelling', crossed);
    switch (level.test) {
      case 'same':
        return `list_has_any(${L}.${name}_tokens, ${oriented(name, 'tokens', crossed)})`;
      case 'jaro_winkler':
        return `jaro_winkler_similarity(${left}, ${right}) >= ${threshold}`;
      case 'edits':
        return `${MACRO_SCHEMA}.within_edits(${left}, ${right}, ${threshold})`;
      case 'short_form':
        // a short form or nickname of a word of the other, or two of one name (the club's
        // first_name_forms.csv: each first name with the full names its words are forms of),
        // word by word as exact compares: Kris and Kristian Øyvind
        // (NULL for most names: the cheap test first)
        return `(${L}.first_name_forms is not null or (${notCrossed(crossed)} and ${R}.first_name_forms is not null))
                and (list_has_any(${L}.first_name_forms, ${oriented(name, 'tokens', crossed)}) or (${notCrossed(crossed)} and (list_has_any(${R}.first_name_forms, ${L}.first_name_tokens) or list_has_any(${L}.first_name_forms, ${R}.first_name_forms))))`;
      case 'name_part': {
        // a word of one name begins or ends a word of the other, the shorter of at least
        // `threshold` letters (Alex and Alexander, Kim and Joakim): single words, as most names
        // are, by their spellings, the words of longer names pair by pair
        const part = (a: string, b: string) =>
          `least(length(${a}), length(${b})) >= ${threshold} and (starts_with(${a}, ${b}) or starts_with(${b}, ${a}) or ends_with(${a}, ${b}) or ends_with(${b}, ${a}))`;
        const [leftTokens, rightTokens] = [`${L}.${name}_tokens`, oriented(name, 'tokens', crossed)];
        return `case when len(${leftTokens}) = 1 and len(${rightTokens}) = 1 then ${part(left, right)}
                else list_bool_or(list_transform(${leftTokens}, left_word -> list_bool_or(list_transform(${rightTokens}, right_word -> ${part('left_word', 'right_word')})))) end`;
      }
      case 'initial':
        // one side only an initial, the other's first letter
        return `(length(${left}) = 1 or length(${right}) = 1) and left(${left}, 1) = left(${right}, 1)`;
      case 'letters_dropped':
        // one is the other with letters left out: as many edits as the lengths differ, so none
        // is a change; the first letter kept, as a name cut short keeps it (Ly for Lily), while
        // another name of a household rarely does (Jon beside Bjørn)
        return `left(${left}, 1) = left(${right}, 1) and length(${left}) <> length(${right}) and abs(length(${left}) - length(${right})) <= ${threshold}
                and damerau_levenshtein(${left}, ${right}) = abs(length(${left}) - length(${right}))`;
    }
  }
  if (kind === 'date') {
    const [left, right] = [`${L}.birth_date_key`, `${R}.birth_date_key`];
    switch (level.test) {
      case 'same':
        return `${left} = ${right}`;
      case 'edits':
        // digits changed, as both are written YYYYMMDD (eight characters: hamming is defined, and far cheaper than edits)
        return `hamming(${L}.birth_date_digits, ${R}.birth_date_digits) <= ${threshold}`;
      case 'days_apart':
        return `abs(date_diff('day', ${left}, ${right})) <= ${threshold}`;
      case 'day_month_swapped':
        return `year(${left}) = year(${right}) and day(${left}) = month(${right}) and month(${left}) = day(${right})`;
    }
  }
  if (kind === 'text') {
    const column = level.comparison === 'phone' ? 'phone_key' : 'email';
    const [left, right] = [`${L}.${column}`, `${R}.${column}`];
    switch (level.test) {
      case 'same':
        return `${left} = ${right}`;
      case 'same_number':
        // one number in E.164 (macros.phone_e164, with the club's default country code)
        return `${L}.phone_e164 = ${R}.phone_e164`;
      case 'jaro_winkler':
        return `jaro_winkler_similarity(${left}, ${right}) >= ${threshold}`;
      case 'edits':
        return `${MACRO_SCHEMA}.within_edits(${left}, ${right}, ${threshold})`;
    }
  }
  // address: street line, postal code and town compared together, as one fact (inside a `not`,
  // NULL must be false: `differs`)
  const agrees = (column: string) => `coalesce(${L}.${column} = ${R}.${column}, true)`;
  const differs = (column: string) => `coalesce(${L}.${column} <> ${R}.${column}, false)`;
  switch (level.test) {
    case 'same':
      return `${L}.street_key = ${R}.street_key and ${agrees('postcode_key')} and ${agrees('city_key')}`;
    case 'street_edits':
      // one street line with a slip (Griffiths Treet, Deaslandplace), the postal code and town agreeing where both have them:
      // unlike another house of one street (12 and 89 Longman Street), which street_similar takes
      return `${MACRO_SCHEMA}.within_edits(${L}.street_key, ${R}.street_key, ${threshold}) and ${agrees('postcode_key')} and ${agrees('city_key')}`;
    case 'street_similar':
      // not both the postal code and the town differ, unless each by a slip (2045 and 2044, Lilydale and Liyldale:
      // two places rarely hold one street line with names and codes a slip apart)
      return `jaro_winkler_similarity(${L}.street_key, ${R}.street_key) >= ${threshold}
                and (not (${differs('postcode_key')} and ${differs('city_key')})
                    or (${MACRO_SCHEMA}.within_edits(${L}.postcode_key, ${R}.postcode_key, 1) and ${MACRO_SCHEMA}.within_edits(${L}.city_key, ${R}.city_key, 1)))`;
    case 'street_town_swapped': {
      // a street line written as the town (or the other way round) on one side: its letters alike the other's town, whatever the postal codes
      const alike = (a: string, b: string) => `jaro_winkler_similarity(${a}, ${b}) >= ${threshold}`;
      return `${alike(`${L}.street_letters`, `${R}.city_key`)} or ${alike(`${L}.city_key`, `${R}.street_letters`)}`;
    }
    case 'postcode_and_city_without_street':
      // the street line missing on a side: no evidence of another street, unlike postcode_and_city
      return `${L}.postcode_key = ${R}.postcode_key and ${L}.city_key = ${R}.city_key and (${L}.street_key is null or ${R}.street_key is null)`;
    case 'postcode_and_city':
      return `${L}.postcode_key = ${R}.postcode_key and ${L}.city_key = ${R}.city_key`;
    case 'postcode_or_city':
      return `${L}.postcode_key = ${R}.postcode_key or ${L}.city_key = ${R}.city_key`;
  }
  throw new Error(`no SQL for test ${level.test} of ${level.comparison}`);
}

/** When a comparison has no evidence either way: a value missing on a side. */
function missingSql(comparison: ComparisonName, crossed: Crossed): string {
  switch (COMPARISONS[comparison]) {
    case 'name':
      return `${L}.${comparison}_spelling is null or ${oriented(comparison as 'first_name' | 'last_name', 'spelling', crossed)} is null`;
    case 'date':
      return `${L}.birth_date_key is null or ${R}.birth_date_key is null`;
    case 'text': {
      const column = comparison === 'phone' ? 'phone_key' : 'email';
      return `${L}.${column} is null or ${R}.${column} is null`;
    }
    case 'address':
      return ['street_key', 'postcode_key', 'city_key'].map((column) => `(${L}.${column} is null or ${R}.${column} is null)`).join(' and ');
  }
}

/**
 * How common the agreeing name is: the spelling's, where the two spell it alike (a name of one
 * word on both sides, or one double-barrelled name, as rare as the two together); else, where
 * either has several words ("Kari Marie" and "Marie"), the rarest word the two have in common
 * (exact means a word in common), as the term frequency adjustment weighs the value that matched.
 */
function matchedTf(column: 'first_name' | 'last_name', crossed: Crossed): string {
  const tokens = oriented(column, 'tokens', crossed);
  const written = `greatest(${L}.${column}_tf, ${oriented(column, 'tf', crossed)})`;
  const shared = `list_min(list_transform(list_intersect(${L}.${column}_tokens, ${tokens}), word -> coalesce(${L}.${column}_token_tfs[list_position(${L}.${column}_tokens, word)], ${L}.${column}_tf)))`;
  const sameSpelling = `${L}.${column}_spelling = ${oriented(column, 'spelling', crossed)}`;
  return `case when len(${L}.${column}_tokens) > 1 or len(${tokens}) > 1 then case when ${sameSpelling} then ${written} else coalesce(${shared}, ${written}) end else ${written} end`;
}

function levelSql(comparison: ComparisonName, levels: readonly ComparisonLevel[], crossed: Crossed = 'crossed'): string {
  const own = levels.filter((level) => level.comparison === comparison);
  if (own.length === 0) return '0';
  const tests = own.slice(0, -1).map((level) => `when ${testSql(level, crossed)} then ${level.index}`);
  return `case when ${missingSql(comparison, crossed)} then 0 ${tests.join(' ')} else ${own.at(-1)!.index} end`;
}

/** The struct of a pair's levels and term frequencies (identity_levels_oriented's body). */
function levelsStruct(levels: readonly ComparisonLevel[], crossed: Crossed): string {
  const fields = (Object.keys(COMPARISONS) as ComparisonName[]).map((comparison) => `        '${comparison}': ${levelSql(comparison, levels, crossed)}`);
  return `{
        'crossed': ${crossed},
${fields.join(',\n')},
        'first_name_tf': ${matchedTf('first_name', crossed)},
        'last_name_tf': ${matchedTf('last_name', crossed)}
    }`;
}

function levelsMacro(levels: readonly ComparisonLevel[]): MacroDefinition {
  return {
    name: 'identity_levels_oriented',
    file: 'identity model sql/identity/comparison_levels.csv',
    sql: `create or replace macro ${MACRO_SCHEMA}.identity_levels_oriented(${L}, ${R}, crossed) as ${levelsStruct(levels, 'crossed')};\n`,
    description: 'How two rows of intermediate.int_identity_comparables compare, r\'s names taken crosswise when crossed: a level index per comparison (sql/identity/comparison_levels.csv; 0 missing on a side) and the names\' term frequencies.',
  };
}

/**
 * Whether two birth dates beyond every slip tell two records apart (identity_contradicts,
 * identity_worth_comparing): only where the model weighs the last birth-date level (`different`)
 * at least the ambiguity weight against (training.csv ambiguity_weight, -10 bits), that is where
 * the club's own records keep birth dates well. Where one true pair in 22 carries another birth
 * date (Febrl 4: -4.4 bits), a difference is weak evidence the model weighs, not a veto; a
 * comparison training had no u evidence for weighs nothing, so it tells nobody apart either.
 * Before any model is trained: the rule as shipped (nothing links by a model then). The weight,
 * or undefined when there is none.
 */
export function birthDateDifferenceWeight(config: IdentityModelConfig, model: StoredModel | undefined): number | undefined {
  return differentWeight(config, model, 'birth_date');
}

/**
 * The weight the model in force gives a comparison's last level (`different`, its `else`), or
 * undefined with no model or a level it could not train (m or u missing or 0).
 */
function differentWeight(config: IdentityModelConfig, model: StoredModel | undefined, comparison: ComparisonName): number | undefined {
  const different = config.levels.filter((level) => level.comparison === comparison).at(-1);
  const stored = model?.levels.find((level) => level.comparison === comparison && level.levelIndex === different?.index);
  if (stored?.m === null || stored?.m === undefined || stored.u === null || stored.u === undefined || !(stored.m > 0 && stored.u > 0)) return undefined;
  return levelWeight(stored);
}

/** A stored level's weight, log2(m/u) in bits, as macros.identity_model() gives it: level 0 (missing on a side) weighs 0. */
function levelWeight(level: StoredModel['levels'][number]): number {
  return level.levelIndex === 0 ? 0 : Math.log2(level.m! / level.u!);
}

/**
 * Whether a comparison's last level (`different`) tells two records apart: the model in force
 * weighs it at least the ambiguity weight against, or no model weighs it yet (the rule as shipped).
 */
function differentTellsApart(config: IdentityModelConfig, model: StoredModel | undefined, comparison: ComparisonName): boolean {
  const weight = differentWeight(config, model, comparison);
  return weight === undefined || weight <= config.training.ambiguity_weight;
}

/** See birthDateDifferenceWeight. */
export function birthDatesTellApart(config: IdentityModelConfig, model: StoredModel | undefined): boolean {
  return differentTellsApart(config, model, 'birth_date');
}

/** The levels of a comparison whose test is one of `tests`, by index. */
const levelsByTest = (levels: readonly ComparisonLevel[], comparison: ComparisonName, tests: readonly string[]) =>
  levels.filter((level) => level.comparison === comparison && tests.includes(level.test)).map((level) => level.index);

/** The comparisons identity_first_names_apart reads, in the order of its arguments (and of identity_levels' struct). */
const APART_COMPARISONS = ['first_name', 'last_name', 'birth_date', 'email', 'phone', 'address'] as const satisfies readonly ComparisonName[];

/**
 * identity_first_names_apart(first_name, last_name, birth_date, email, phone, address), over a
 * pair's level indexes: whether its first names say two people. Unrelated first names do where
 * the model in force says they tell people apart (identity_first_names_tell_apart); elsewhere
 * only in a household's case, where agreement is the household's, not the person's, and no
 * weight can tell one person from two:
 * - the twin case: one surname (a word in common), and no other birth date or address: each the
 *   same (one street line, postal code and town, or a street line with a slip) or missing on a
 *   side, as twins and siblings of a household look (a record without a birth date kept the
 *   chain cut between twins whose other records a middle name joined: the noisy seed 11);
 * - one e-mail address or phone number (a household's mailbox or phone: partners, parents and
 *   children), where an unrelated first name is the household's other person far more often than
 *   a nickname (the independent set: 304 pairs of two persons against 66 of one).
 * Only a hard link (an externalId) or an analyst joins them. The one rule identity_is_vetoed (the
 * link, the ambiguity rule) and identity_contradicts (the chain cut, the data test) apply; its SQL
 * is in the definition hash.
 */
function firstNamesApartMacro(levels: readonly ComparisonLevel[]): MacroDefinition {
  const unrelated = levels.filter((level) => level.comparison === 'first_name').at(-1)?.index ?? -1;
  const within = (comparison: ComparisonName, indexes: number[]) => (indexes.length === 0 ? 'false' : `${comparison} in (${indexes.join(', ')})`);
  const twin = `${within('last_name', levelsByTest(levels, 'last_name', ['same']))} and ${within('birth_date', [0, ...levelsByTest(levels, 'birth_date', ['same'])])} and ${within('address', [0, ...levelsByTest(levels, 'address', ['same', 'street_edits'])])}`;
  const contact = `${within('email', levelsByTest(levels, 'email', ['same']))} or ${within('phone', levelsByTest(levels, 'phone', ['same_number', 'same']))}`;
  return {
    name: 'identity_first_names_apart',
    file: 'identity model sql/identity/comparison_levels.csv',
    sql: `create or replace macro ${MACRO_SCHEMA}.identity_first_names_apart(${APART_COMPARISONS.join(', ')}) as
    first_name = ${unrelated} and (${MACRO_SCHEMA}.identity_first_names_tell_apart() or ${contact} or (${twin}));\n`,
    description:
      'Whether a pair\'s levels (first_name, last_name, birth_date, email, phone, address: level indexes) say two people by their first names: unrelated (the level different) where the model in force weighs that at least identity_ambiguity_weight() bits against (identity_first_names_tell_apart), else only in a household\'s case: one e-mail or phone, or one surname with no other birth date or address (each the same or missing on a side: twins, siblings). Vetoes a model link (identity_is_vetoed) and contradicts (identity_contradicts).',
  };
}

/** The call of identity_first_names_apart over the levels `levelOf` gives. */
export function firstNamesApartCall(levelOf: (comparison: ComparisonName) => string): string {
  return `${MACRO_SCHEMA}.identity_first_names_apart(${APART_COMPARISONS.map(levelOf).join(', ')})`;
}

/**
 * Two records no fan may hold both of unless a hard link or an analyst says so: their first
 * names unrelated (the comparison's last level, its `else`, sql/identity/comparison_levels.csv)
 * where the model says that tells people apart, else in a household's case (identity_first_names_apart),
 * or their birth dates different (the last level) and more than a digit apart even with day and
 * month swapped (two slips at once) where the model says birth dates tell people apart
 * (identity_birth_dates_tell_apart), or their profiles' people agreeing on two first names a slip
 * apart (namesHeldApartSql). int_identity_clusters cuts a component holding such a pair
 * at its weakest model links; sql/tests/identity_fans_hold_no_contradiction.sql checks it.
 */
function contradictsSql(levels: readonly ComparisonLevel[], crossed: Crossed): string {
  const elseLevel = (comparison: ComparisonName) => levels.filter((level) => level.comparison === comparison).at(-1)?.index ?? -1;
  return `${firstNamesApartCall((comparison) => levelSql(comparison, levels, crossed))}
    or (${MACRO_SCHEMA}.identity_birth_dates_tell_apart() and (${levelSql('birth_date', levels, crossed)}) = ${elseLevel('birth_date')}
        and hamming(${L}.birth_date_digits, left(${R}.birth_date_digits, 4) || right(${R}.birth_date_digits, 2) || substr(${R}.birth_date_digits, 5, 2)) > 1)
    or (${namesHeldApartSql(levels, crossed)})`;
}

/** The first-name tests that take two spellings for a slip of one name, not for two names or a form of one. */
const SLIP_TESTS = new Set(['edits', 'jaro_winkler', 'letters_dropped']);

/**
 * Two customer profiles whose people each agree on a first name, the two names a slip apart
 * (Eirik and Erik): a slip is one record's, and two or more identities of each profile writing
 * their name alike are two people named alike (twins, siblings). Straight names only, each
 * record writing its profile's name (int_identity_records.people_first_name_spelling).
 */
function namesHeldApartSql(levels: readonly ComparisonLevel[], crossed: Crossed): string {
  const slips = levels.filter((level) => level.comparison === 'first_name' && SLIP_TESTS.has(level.test)).map((level) => level.index);
  if (slips.length === 0) return 'false';
  return `not ${crossed}
        and ${L}.people_first_name_spelling <> ${R}.people_first_name_spelling
        and ${L}.first_name_spelling = ${L}.people_first_name_spelling
        and ${R}.first_name_spelling = ${R}.people_first_name_spelling
        and (${levelSql('first_name', levels, crossed)}) in (${slips.join(', ')})`;
}

/**
 * The contradiction of two records whichever is l: taken crosswise, the first-name comparison
 * reads l's first name against r's last, so it depends on which record is l (Kris Berge against
 * "Berge" "Kristian Øyvind": Berge and Berge one way, Kris and Kristian Øyvind, unrelated, the
 * other), and the clusters (l the lower record number) and the data test (l the lower record
 * key) judged such a pair apart. Crosswise they contradict when either way does: no chain
 * through a crossed pair, at the cost of cutting such a person in two and listing the cut link
 * for review. Straight, the levels are symmetric.
 */
function contradictsEitherWay(levels: readonly ComparisonLevel[], crossed: 'true' | 'false'): string {
  const oneWay = contradictsSql(levels, crossed);
  return crossed === 'false' ? oneWay : `(${oneWay})\n    or (${swapSides(oneWay)})`;
}

/** SQL over l and r with the two exchanged. */
function swapSides(sql: string): string {
  return sql.replace(new RegExp(`\\b(${L}|${R})\\.`, 'g'), (_, side: string) => `${side === L ? R : L}.`);
}

function contradictsMacros(levels: readonly ComparisonLevel[]): MacroDefinition[] {
  const file = 'identity model sql/identity/comparison_levels.csv';
  return [
    {
      name: 'identity_contradicts_oriented',
      file,
      // only the two comparisons that can contradict, not all six: int_identity_clusters asks
      // it of every pair of records of a component. Birth dates: beyond every slip the levels
      // know, and more than one digit apart with day and month swapped too, so two slips at once
      // (a digit, and day and month swapped) stay evidence.
      sql: `create or replace macro ${MACRO_SCHEMA}.identity_contradicts_oriented(${L}, ${R}, crossed) as
    ${contradictsSql(levels, 'crossed')};\n`,
      description: 'identity_contradicts with r\'s names taken crosswise when crossed.',
    },
    {
      name: 'identity_contradicts',
      file,
      sql: `create or replace macro ${MACRO_SCHEMA}.identity_contradicts(${L}, ${R}) as
    case when ${CROSSED} then ${MACRO_SCHEMA}.identity_contradicts_oriented(${L}, ${R}, true) or ${MACRO_SCHEMA}.identity_contradicts_oriented(${R}, ${L}, true) else ${MACRO_SCHEMA}.identity_contradicts_oriented(${L}, ${R}, false) end;\n`,
      description: 'Whether two rows l and r of int_identity_comparables are two people whatever else they share: first names unrelated (the last level) where the model says that tells people apart, else in a household\'s case: one e-mail or phone, or one surname with no other birth date or address (identity_first_names_apart), or birth dates different (the last level) and more than a digit apart even with day and month swapped where the model says a birth date tells people apart (identity_birth_dates_tell_apart), or the people of their two customer profiles agreeing on two first names a slip apart; names taken crosswise, either way round (the same answer for l, r as for r, l). No fan holds both but through a hard link or an analyst\'s override.',
    },
  ];
}

/**
 * The pairs of a table (pairs_table: columns lower_number and higher_number) joined to the rows
 * of records_table (shaped like int_identity_comparables; l the lower, r the higher) by record
 * number. Why table macros beside identity_levels and identity_contradicts, which give the same
 * values: a scalar macro is handed two rows as structs, and DuckDB packs the struct again at
 * every field the CASE reads (about a hundred), which cost as much as all the comparisons. Here
 * the SQL is written out over the joined columns, once for each branch of the crossed test.
 */
function pairJoin(): string {
  return `    from query_table(pairs_table) as pairs
    inner join query_table(records_table) as ${L} on ${L}.record_number = pairs.lower_number
    inner join query_table(records_table) as ${R} on ${R}.record_number = pairs.higher_number`;
}

function pairMacros(levels: readonly ComparisonLevel[]): MacroDefinition[] {
  const file = 'identity model sql/identity/comparison_levels.csv';
  return [
    {
      name: 'identity_pair_levels',
      file,
      sql: `create or replace macro ${MACRO_SCHEMA}.identity_pair_levels(pairs_table, records_table) as table
    select
        pairs.*,
        ${L}.record_key as lower_key,
        ${R}.record_key as higher_key,
        case when ${CROSSED} then ${levelsStruct(levels, 'true')} else ${levelsStruct(levels, 'false')} end as levels,
${pairJoin()};\n`,
      description: 'Each pair of pairs_table (lower_number, higher_number) with its records\' keys (lower_key, higher_key) and levels, as macros.identity_levels gives them, of the rows of records_table (shaped like intermediate.int_identity_comparables) of those record numbers.',
    },
    {
      name: 'identity_pair_contradictions',
      file,
      sql: `create or replace macro ${MACRO_SCHEMA}.identity_pair_contradictions(pairs_table, records_table) as table
    select pairs.*
${pairJoin()}
    where case when ${CROSSED} then (${contradictsEitherWay(levels, 'true')}) else (${contradictsEitherWay(levels, 'false')}) end;\n`,
      description: 'The pairs of pairs_table (lower_number, higher_number) whose rows of records_table are two people, as macros.identity_contradicts tells them.',
    },
  ];
}

/**
 * The values of one block key of row r, as text: one for most keys, one per word for a key a
 * record holds several of (either word of the name; the town, or a street line without a house
 * number, as a place, so a town written in the street field still meets). A rule over several
 * such keys takes each combination. A second value equal to the first is left out (NULL), so no
 * record is in one block twice and the list needs no list_distinct, which cost as much as the
 * rest of it.
 */
function blockValues(key: BlockKey, hasBothNames: boolean): string[] {
  switch (key) {
    case 'email':
      return [`${R}.email`];
    case 'phone':
      return [`${R}.phone_key`];
    case 'first_name':
      // with last_name: the name pair in alphabetical order, so either way round meets
      return [hasBothNames ? `least(${R}.first_name_spelling, ${R}.last_name_spelling)` : `${R}.first_name_spelling`];
    case 'last_name':
      return [hasBothNames ? `greatest(${R}.first_name_spelling, ${R}.last_name_spelling)` : `${R}.last_name_spelling`];
    case 'name_word':
      return [`${R}.first_name_spelling`, `nullif(${R}.last_name_spelling, ${R}.first_name_spelling)`];
    case 'birth_date':
      return [`cast(${R}.birth_date_key as varchar)`];
    case 'postcode':
      return [`${R}.postcode_key`];
    case 'city':
      return [`${R}.city_key`];
    case 'street':
      return [`${R}.street_key`];
    case 'place':
      return [`${R}.city_key`, `nullif(${R}.street_place, ${R}.city_key)`];
    case 'name_start':
      // the first three letters of either word of the name: a slip further in does not keep it apart
      return [`left(${R}.first_name_spelling, 3)`, `nullif(left(${R}.last_name_spelling, 3), left(${R}.first_name_spelling, 3))`];
    case 'initials':
      return [`${R}.initials`];
  }
}

/** Every combination of one value per key. */
function combinations(values: string[][]): string[][] {
  return values.reduce<string[][]>((combined, options) => combined.flatMap((prefix) => options.map((option) => [...prefix, option])), [[]]);
}

/** Each blocking rule's values of row r (its columns as r.<column>), one entry per rule, or per word: the parts its block value joins. */
function blockKeyParts(rules: readonly BlockingRule[]): { ruleIndex: number; parts: string[] }[] {
  return rules.flatMap((rule) => {
    const both = rule.blockOn.includes('first_name') && rule.blockOn.includes('last_name');
    return combinations(rule.blockOn.map((key) => blockValues(key, both))).map((parts) => ({ ruleIndex: rule.index, parts }));
  });
}

/** Each blocking rule's block values of row r (its columns as r.<column>): one per rule, or per word. */
function blockKeyEntries(rules: readonly BlockingRule[]): { ruleIndex: number; value: string }[] {
  return blockKeyParts(rules).map(({ ruleIndex, parts }) => ({
    ruleIndex,
    value: `${MACRO_SCHEMA}.block_key(${[`'${ruleIndex}'`, ...parts].join(" || '|' || ")})`,
  }));
}

/** The block values of row r (its columns as r.<column>), one per blocking rule (or per word), NULL ones left out. */
function blockKeysSql(rules: readonly BlockingRule[]): string {
  const entries = blockKeyEntries(rules).map((entry) => `{'rule_index': ${entry.ruleIndex}, 'block_value': ${entry.value}}`);
  return `list_filter([
        ${entries.join(',\n        ')}
    ], block -> block.block_value is not null)`;
}

function blockKeysMacro(rules: readonly BlockingRule[]): MacroDefinition {
  return {
    name: 'identity_block_keys',
    file: 'identity model sql/identity/blocking_rules.csv',
    sql: `create or replace macro ${MACRO_SCHEMA}.identity_block_keys(${R}) as ${blockKeysSql(rules)};\n`,
    description: 'The values a row of intermediate.int_identity_comparables is blocked on, one per blocking rule (two for a rule on either word of the name), as 64-bit hashes of the rule and its values.',
  };
}

/** The text a block value hashes: the rule's index and its parts ('3|1980-05-01|kari'), as identity_block_keys writes it. */
function blockTextSql(ruleIndex: number, parts: readonly string[]): string {
  return `'${ruleIndex}|' || ${parts.join(" || '|' || ")}`;
}

/**
 * The same block values for every row of a table, over its columns: a row handed to a scalar
 * macro is packed into a struct again at every field read, which cost most of computing them.
 * The same text is hashed as identity_block_keys hashes ('3|1980-05-01|kari'), so the values
 * are equal (the crowded values a model version froze are compared with them), but built
 * cheaper: each part once per record (a birth date as text, say, is in six values), and hashed
 * after the NULL texts are left out (macros.block_key over the joined text wrote it twice).
 * Each value comes with its rule's cap and whether the rule predicts, so that
 * identity_block_members filters the rules without a join.
 */
function recordBlockKeysMacro(rules: readonly BlockingRule[]): MacroDefinition {
  const entries = blockKeyParts(rules);
  const parts = [...new Set(entries.flatMap((entry) => entry.parts))];
  const alias = (part: string) => `part_${parts.indexOf(part)}`;
  const text = (entry: { ruleIndex: number; parts: string[] }) => blockTextSql(entry.ruleIndex, entry.parts.map(alias));
  const ruleOf = (entry: { ruleIndex: number }) => rules.find((rule) => rule.index === entry.ruleIndex)!;
  return {
    name: 'identity_record_block_keys',
    file: 'identity model sql/identity/blocking_rules.csv',
    // the values hashed in a list unnested beside each value's rule, cap and whether it
    // predicts, three constant lists unnested with it (unnests of one select go in step), the
    // NULL values left out after: no struct per value (building one of every value, and joining
    // the rules on its field, cost a third of computing them); the constant lists, not positions
    // looked up in them (generate_subscripts built a list of positions for every record, and each
    // lookup the constant list for every value: 0.2-0.26 s of CPU of a scale-10 full build)
    sql: `create or replace macro ${MACRO_SCHEMA}.identity_record_block_keys(records_table) as table
    select
        record_number,
        entity_number,
        rule_index,
        block_value,
        cap,
        predict,
    from (
        select
            record_number,
            entity_number,
            unnest(block_values) as block_value,
            unnest([${entries.map((entry) => entry.ruleIndex).join(', ')}]) as rule_index,
            unnest([${entries.map((entry) => ruleOf(entry).cap).join(', ')}]) as cap,
            unnest([${entries.map((entry) => ruleOf(entry).predict).join(', ')}]) as predict,
        from (
            select
                record_number,
                entity_number,
                [
                    ${entries.map((entry) => `${MACRO_SCHEMA}.block_key(${text(entry)})`).join(',\n                    ')}
                ] as block_values
            from (
                select
                    ${R}.record_number,
                    -- the entity as a number, as the record is (macros.record_number): the pairs of a
                    -- block compare it on every pair, and a key of some 30 letters cost a tenth of
                    -- int_identity_pairs to copy and compare
                    hash(${R}.entity_key) as entity_number,
                    ${parts.map((part) => `${part} as ${alias(part)}`).join(',\n                    ')}
                from query_table(records_table) as ${R}
            )
        )
    )
    where block_value is not null;\n`,
    description: 'One row per record of records_table (shaped like intermediate.int_identity_comparables) and value it is blocked on (macros.identity_block_keys): its rule_index and block_value, with the rule\'s cap and whether it predicts, and its entity as a number (a hash of entity_key).',
  };
}

/**
 * The records of records_table that share a block with a row of probes_table (both shaped like
 * intermediate.int_identity_records), by the rules that predict: each rule's values (one per word
 * of a name a rule takes either of) joined on the probes' values of that rule, column by column.
 * The members of the probes' blocks but the crowded ones the model froze, found without computing
 * every record's block values, which cost most of an incremental build of int_identity_pairs.
 */
function nearRecordsMacro(rules: readonly BlockingRule[]): MacroDefinition {
  const entries = blockKeyParts(rules.filter((rule) => rule.predict));
  const ruleIndexes = [...new Set(entries.map((entry) => entry.ruleIndex))];
  const probeValues = ruleIndexes.map((ruleIndex) => {
    const combinations = entries.filter((entry) => entry.ruleIndex === ruleIndex);
    const columns = combinations[0]!.parts.map((_, at) => `value_${at}`);
    // a value the model in force froze as crowded compares nobody: its members are not looked up
    const selects = combinations.map(
      (entry) =>
        `select ${entry.parts.map((part, at) => `${part} as ${columns[at]}`).join(', ')} from probes as ${R} where ${MACRO_SCHEMA}.block_key(${blockTextSql(entry.ruleIndex, entry.parts)}) not in (select block_value from crowded)`,
    );
    return `probe_values_${ruleIndex} as (${selects.join(' union ')})`;
  });
  const matches = entries.map(
    (entry) =>
      `select ${R}.record_number from query_table(records_table) as ${R} semi join probe_values_${entry.ruleIndex} as probe on ${entry.parts.map((part, at) => `${part} = probe.value_${at}`).join(' and ')}`,
  );
  return {
    name: 'identity_near_records',
    file: 'identity model sql/identity/blocking_rules.csv',
    sql: `create or replace macro ${MACRO_SCHEMA}.identity_near_records(records_table, probes_table) as table
    with
    probes as materialized (select * from query_table(probes_table)),
    crowded as (select block_value from ${MACRO_SCHEMA}.identity_model_crowded_blocks()),
    ${probeValues.join(',\n    ')}
    ${matches.join('\n    union\n    ')};\n`,
    description: 'The record numbers of records_table that share a block (a blocking rule that predicts) with a row of probes_table, both shaped like intermediate.int_identity_records, found by joining each rule\'s values.',
  };
}

/** A table macro over literal rows; `types` gives the columns, so an empty table keeps them. */
function tableMacro(name: string, file: string, description: string, columns: [string, string][], rows: string[][]): MacroDefinition {
  const names = columns.map(([column]) => column).join(', ');
  const body =
    rows.length === 0
      ? `select * from (values (${columns.map(([, type]) => `null::${type}`).join(', ')})) as rows(${names}) limit 0`
      : `select * from (values\n    ${rows.map((row) => `(${row.map((value, at) => `${value}::${columns[at]![1]}`).join(', ')})`).join(',\n    ')}\n) as rows(${names})`;
  return { name, file, description, sql: `create or replace macro ${MACRO_SCHEMA}.${name}() as table\n${body};\n` };
}

const literal = (value: string | number | boolean | null) => (value === null ? 'null' : typeof value === 'string' ? quoteLiteral(value) : String(value));

/**
 * The configuration with a definitionHash that covers the SQL its levels, the first-name rule
 * (identity_first_names_apart) and blocking rules are computed with (their tests, thresholds and
 * the constants above), besides the files: a change of
 * that SQL in a new fanlake is a changed configuration too, so build reports a retrain as due.
 */
export function withDefinitionHash(config: IdentityModelConfig): IdentityModelConfig {
  const sql = [levelsMacro(config.levels), firstNamesApartMacro(config.levels), blockKeysMacro(config.blockingRules)].map((macro) => macro.sql);
  const definitionHash = createHash('sha256')
    .update(JSON.stringify([config.filesHash, CROSSED, ...sql]))
    .digest('hex')
    .slice(0, 16);
  return { ...config, definitionHash };
}

/**
 * Every identity macro: the configuration's, the stored model's (none yet: an empty model,
 * so nothing links by the model until it is trained) and the thresholds'.
 */
export function identityModelMacros(config: IdentityModelConfig, model: StoredModel | undefined, thresholds: IdentityThresholds): MacroDefinition[] {
  const file = 'identity model sql/identity/';
  return [
    levelsMacro(config.levels),
    {
      name: 'identity_levels',
      file: `${file}comparison_levels.csv`,
      // crossed as a constant in each branch: the test runs once per pair, not at every name level
      sql: `create or replace macro ${MACRO_SCHEMA}.identity_levels(${L}, ${R}) as
    case when ${CROSSED} then ${MACRO_SCHEMA}.identity_levels_oriented(${L}, ${R}, true) else ${MACRO_SCHEMA}.identity_levels_oriented(${L}, ${R}, false) end;\n`,
      description: 'How two rows of intermediate.int_identity_comparables compare (see identity_levels_oriented); names written the other way round on one side are compared crosswise.',
    },
    firstNamesApartMacro(config.levels),
    ...contradictsMacros(config.levels),
    ...pairMacros(config.levels),
    blockKeysMacro(config.blockingRules),
    recordBlockKeysMacro(config.blockingRules),
    nearRecordsMacro(config.blockingRules),
    tableMacro(
      'identity_blocking_rules',
      `${file}blocking_rules.csv`,
      'The blocking rules (sql/identity/blocking_rules.csv): records sharing a rule\'s values are compared; a value on more records than the cap is dropped.',
      [['rule_index', 'integer'], ['rule', 'varchar'], ['block_on', 'varchar'], ['cap', 'integer'], ['predict', 'boolean'], ['train', 'boolean'], ['description', 'varchar']],
      config.blockingRules.map((rule) => [literal(rule.index), literal(rule.rule), literal(rule.blockOn.join('+')), literal(rule.cap), literal(rule.predict), literal(rule.train), literal(rule.description)]),
    ),
    tableMacro(
      'identity_comparison_levels',
      `${file}comparison_levels.csv`,
      'The comparisons\' levels (sql/identity/comparison_levels.csv), with level 0, missing on a side, for each.',
      [['comparison', 'varchar'], ['level_index', 'integer'], ['level', 'varchar'], ['test', 'varchar'], ['threshold', 'double'], ['term_frequency', 'boolean'], ['veto', 'boolean'], ['description', 'varchar']],
      [...new Set(config.levels.map((level) => level.comparison))].flatMap((comparison) => [
        [literal(comparison), '0', literal('missing'), literal('missing'), 'null', 'false', 'false', literal('A value missing on a side: no evidence either way')],
        ...config.levels
          .filter((level) => level.comparison === comparison)
          .map((level) => [literal(comparison), literal(level.index), literal(level.level), literal(level.test), literal(level.threshold), literal(level.termFrequency), literal(level.veto), literal(level.description)]),
      ]),
    ),
    tableMacro(
      'identity_model',
      model ? `identity model version ${model.version}` : 'identity model (not trained yet)',
      'The trained identity model (meta.identity_models, meta.identity_model_levels): per comparison level its m and u and its weight log2(m/u); level 0 weighs 0.',
      [['model_version', 'integer'], ['comparison', 'varchar'], ['level_index', 'integer'], ['level', 'varchar'], ['m', 'double'], ['u', 'double'], ['weight', 'double'], ['term_frequency', 'boolean'], ['veto', 'boolean']],
      model
        ? model.levels.map((level) => {
            const configured = config.levels.find((known) => known.comparison === level.comparison && known.index === level.levelIndex);
            return [
              literal(model.version), literal(level.comparison), literal(level.levelIndex), literal(level.level), literal(level.m), literal(level.u),
              literal(levelWeight(level)), literal(configured?.termFrequency ?? false), literal(configured?.veto ?? false),
            ];
          })
        : [],
    ),
    {
      name: 'identity_model_version',
      file: model ? `identity model version ${model.version}` : 'identity model (not trained yet)',
      sql: `create or replace macro ${MACRO_SCHEMA}.identity_model_version() as ${model ? model.version : 0};\n`,
      description: 'The version of the stored identity model build predicts with (0: none trained yet).',
    },
    {
      name: 'identity_prior_weight',
      file: model ? `identity model version ${model.version}` : 'identity model (not trained yet)',
      sql: `create or replace macro ${MACRO_SCHEMA}.identity_prior_weight() as ${model ? Math.log2(model.prior / (1 - model.prior)) : 'null::double'};\n`,
      description: 'log2 of the prior odds that two records are one person, the starting point of every match weight.',
    },
    ...frozenStatisticsMacros(model),
    {
      name: 'identity_link_threshold',
      file: `setting identityLinkThreshold (${thresholds.link})`,
      sql: `create or replace macro ${MACRO_SCHEMA}.identity_link_threshold() as ${thresholds.link}::double;\n`,
      description: 'The match probability at or above which two records are one fan (setting FANLAKE_IDENTITY_LINK_THRESHOLD).',
    },
    {
      name: 'identity_ambiguity_weight',
      file: `${file}training.csv`,
      sql: `create or replace macro ${MACRO_SCHEMA}.identity_ambiguity_weight() as ${config.training.ambiguity_weight}::double;\n`,
      description: 'Evidence against two records at least this strong (the sum of their negative weights, in bits) tells them apart like a veto (int_identity_ambiguous_links).',
    },
    ...TELL_APART_RULES.map((rule) => tellApartMacro(config, model, rule.comparison, rule.name, rule.description)),
    {
      name: 'identity_review_threshold',
      file: `setting identityReviewThreshold (${thresholds.review})`,
      sql: `create or replace macro ${MACRO_SCHEMA}.identity_review_threshold() as ${thresholds.review}::double;\n`,
      description: 'The match probability from which a pair under the link threshold is listed for review (setting FANLAKE_IDENTITY_REVIEW_THRESHOLD).',
    },
  ];
}

/**
 * The rules that follow the model in force, each a constant macro (so a false one drops its
 * tests from every pair's SQL): whether a comparison's level `different` tells people apart.
 * Unrelated first names as birth dates (birthDatesTellApart): where the model weighs them less
 * than the ambiguity weight against (Febrl 4's second file replaces a first name outright in one
 * pair of eleven: -3.4 bits), they are evidence, and only a household's case
 * (identity_first_names_apart) is two people.
 */
const TELL_APART_RULES: { comparison: ComparisonName; name: string; description: string }[] = [
  {
    comparison: 'birth_date',
    name: 'identity_birth_dates_tell_apart',
    description:
      'Whether birth dates different beyond every slip are two people (macros.identity_contradicts, macros.identity_worth_comparing): the model in force weighs the level different at least identity_ambiguity_weight() bits against, so the club\'s records keep birth dates well; true before a model weighs it.',
  },
  {
    comparison: 'first_name',
    name: 'identity_first_names_tell_apart',
    description:
      'Whether unrelated first names alone are two people (macros.identity_first_names_apart, macros.identity_worth_comparing): the model in force weighs the level different at least identity_ambiguity_weight() bits against; else only a household\'s case is (one e-mail or phone, or one surname with no other birth date or address). True before a model weighs it.',
  },
];

/** A constant macro: whether the comparison's level `different` tells people apart under the model in force (differentTellsApart). */
function tellApartMacro(config: IdentityModelConfig, model: StoredModel | undefined, comparison: ComparisonName, name: string, description: string): MacroDefinition {
  const weight = differentWeight(config, model, comparison);
  return {
    name,
    file: model
      ? `identity model version ${model.version} (${comparison} different ${weight === undefined ? 'untrained' : `${weight.toFixed(2)} bits`}, ambiguity_weight ${config.training.ambiguity_weight})`
      : 'identity model (not trained yet)',
    sql: `create or replace macro ${MACRO_SCHEMA}.${name}() as ${differentTellsApart(config, model, comparison)};\n`,
    description,
  };
}

/**
 * What the model in force froze when it was first predicted with (frozen-statistics.ts), as
 * tables the models read: each shared name's term frequency, the term frequency of a name
 * not listed (one person's), and the crowded block values. Empty before the first training.
 */
function frozenStatisticsMacros(model: StoredModel | undefined): MacroDefinition[] {
  const file = model ? `identity model version ${model.version}` : 'identity model (not trained yet)';
  const version = model ? model.version : 0;
  return [
    {
      name: 'identity_model_term_frequencies',
      file,
      sql: `create or replace macro ${MACRO_SCHEMA}.identity_model_term_frequencies() as table
    select word, term_frequency from ${TERM_FREQUENCIES_TABLE} where model_version = ${version};\n`,
      description: 'Each name two or more people carried when the model in force was first predicted with, and their share of people (meta.identity_model_term_frequencies): what an agreeing name is weighed by.',
    },
    {
      name: 'identity_model_rare_term_frequency',
      file,
      sql: `create or replace macro ${MACRO_SCHEMA}.identity_model_rare_term_frequency() as (
    select 1.0 / greatest(statistics_people, 1) from ${MODELS_TABLE} where model_version = ${version}
);\n`,
      description: 'The term frequency of a name the model in force does not list: one person\'s share of the people it was first predicted with.',
    },
    {
      name: 'identity_model_crowded_blocks',
      file,
      sql: `create or replace macro ${MACRO_SCHEMA}.identity_model_crowded_blocks() as table
    select block_value from ${CROWDED_BLOCKS_TABLE} where model_version = ${version};\n`,
      description: 'The block values the model in force compares nobody in (meta.identity_model_crowded_blocks): on more records than their rule\'s cap when it was first predicted with.',
    },
  ];
}
