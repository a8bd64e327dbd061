import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { UsageError } from '../../core/errors.js';
import { parseCsvTable } from '../club/csv-table.js';

/**
 * The identity model's configuration: what records are compared (blocking rules), how each
 * field's agreement is graded (comparison levels), which pairs are surely one person (the
 * deterministic rules the prior is estimated from) and how training runs. Four CSV files in
 * `<models root>/identity/`, read and checked whole by `build` and `identity train`: an
 * unknown word, column or value stops them with `file:line: problem` (exit 2).
 */
export const IDENTITY_CONFIG_FOLDER = 'identity';

/** The comparisons and the kind of values each compares; each has columns of its own in the records. */
export const COMPARISONS = {
  first_name: 'name',
  last_name: 'name',
  birth_date: 'date',
  email: 'text',
  phone: 'text',
  address: 'address',
} as const;
export type ComparisonName = keyof typeof COMPARISONS;
type ComparisonKind = (typeof COMPARISONS)[ComparisonName];

/** The tests a level may name, per kind of value, and whether it takes a threshold. */
const TESTS: Record<ComparisonKind, Record<string, 'none' | 'similarity' | 'count'>> = {
  name: { same: 'none', jaro_winkler: 'similarity', edits: 'count', letters_dropped: 'count', name_part: 'count', short_form: 'none', initial: 'none', else: 'none' },
  date: { same: 'none', edits: 'count', days_apart: 'count', day_month_swapped: 'none', else: 'none' },
  text: { same: 'none', same_number: 'none', jaro_winkler: 'similarity', edits: 'count', else: 'none' },
  address: { same: 'none', street_edits: 'count', street_similar: 'similarity', street_town_swapped: 'similarity', postcode_and_city_without_street: 'none', postcode_and_city: 'none', postcode_or_city: 'none', else: 'none' },
};

/** What a blocking rule's `block_on` may combine (with `+`): values records must share to be compared. */
export const BLOCK_KEYS = ['email', 'phone', 'first_name', 'last_name', 'name_word', 'birth_date', 'postcode', 'city', 'street', 'place', 'name_start', 'initials'] as const;
export type BlockKey = (typeof BLOCK_KEYS)[number];

/** The comparisons a block key settles: held fixed while EM trains on that rule's pairs, as Splink does. */
export const BLOCK_KEY_COMPARISONS: Record<BlockKey, ComparisonName[]> = {
  email: ['email'],
  phone: ['phone'],
  first_name: ['first_name'],
  last_name: ['last_name'],
  name_word: ['first_name', 'last_name'],
  birth_date: ['birth_date'],
  postcode: ['address'],
  city: ['address'],
  street: ['address'],
  place: ['address'],
  name_start: ['first_name', 'last_name'],
  initials: ['first_name', 'last_name'],
};

export interface ComparisonLevel {
  comparison: ComparisonName;
  /** 1 for the first level of its comparison; 0 is reserved for a value missing on a side. */
  index: number;
  level: string;
  test: string;
  threshold: number | null;
  termFrequency: boolean;
  veto: boolean;
  description: string;
}

export interface BlockingRule {
  rule: string;
  /** 0-based, in file order: the rule's bit in a pair's rules (1 << index). */
  index: number;
  blockOn: BlockKey[];
  cap: number;
  predict: boolean;
  train: boolean;
  description: string;
}

export interface DeterministicRule {
  rule: string;
  conditions: { comparison: ComparisonName; level: string }[];
  description: string;
}

/** How training runs (training.csv), every key required. */
export const TRAINING_SETTINGS = {
  u_sample_pairs: { min: 1000, max: 1e9, integer: true },
  u_floor_pairs: { min: 1e-6, max: 1000, integer: false },
  m_floor_matches: { min: 1e-6, max: 1000, integer: false },
  assumed_recall: { min: 0.01, max: 1, integer: false },
  em_max_iterations: { min: 1, max: 1000, integer: true },
  em_tolerance: { min: 1e-12, max: 0.1, integer: false },
  training_records: { min: 100, max: 1e9, integer: true },
  retrain_growth: { min: 0, max: 100, integer: false },
  ambiguity_weight: { min: -1000, max: 0, integer: false },
} as const;
export type TrainingSettings = Record<keyof typeof TRAINING_SETTINGS, number>;

export interface IdentityModelConfig {
  blockingRules: BlockingRule[];
  levels: ComparisonLevel[];
  deterministicRules: DeterministicRule[];
  training: TrainingSettings;
  /**
   * A hash of what the four files say and of the SQL their comparisons and blocking rules are
   * computed with (macros.ts withDefinitionHash; the files' alone until then): a stored model
   * trained under another configuration is trained again.
   */
  definitionHash: string;
  /** A hash of what the four files say, all definitionHash covered before it covered the SQL: a model stored under it is adopted (model-state.ts). */
  filesHash: string;
}

const FILES = {
  blocking: 'blocking_rules.csv',
  levels: 'comparison_levels.csv',
  deterministic: 'deterministic_rules.csv',
  training: 'training.csv',
} as const;

/** Reads the configuration from `<modelsDir>/identity/`; undefined when the folder has none of its files (a project without identity resolution). */
export async function readIdentityModelConfig(modelsDir: string): Promise<IdentityModelConfig | undefined> {
  const folder = join(modelsDir, IDENTITY_CONFIG_FOLDER);
  const texts = await Promise.all(
    Object.values(FILES).map((name) =>
      readFile(join(folder, name), 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      }),
    ),
  );
  if (texts.every((text) => text === undefined)) return undefined;
  const [blocking, levels, deterministic, training] = texts.map((text, at) => {
    const name = Object.values(FILES)[at]!;
    if (text === undefined) throw new UsageError(`${join(folder, name)}: missing; the identity model needs ${Object.values(FILES).join(', ')}`, { file: join(folder, name) });
    return { text, file: join(folder, name) };
  });
  return parseIdentityModelConfig({ blocking: blocking!, levels: levels!, deterministic: deterministic!, training: training! });
}

type Source = { text: string; file: string };

/** Parses the four files' texts; `file` names each in errors. */
export function parseIdentityModelConfig(sources: { blocking: Source; levels: Source; deterministic: Source; training: Source }): IdentityModelConfig {
  const levels = parseLevels(sources.levels);
  const blockingRules = parseBlockingRules(sources.blocking);
  const deterministicRules = parseDeterministicRules(sources.deterministic, levels);
  const training = parseTraining(sources.training);
  const definitionHash = createHash('sha256')
    .update(JSON.stringify({ blockingRules, levels, deterministicRules, training }))
    .digest('hex')
    .slice(0, 16);
  return { blockingRules, levels, deterministicRules, training, definitionHash, filesHash: definitionHash };
}

function failer(file: string) {
  return (line: number, problem: string) => new UsageError(`${file}:${line}: ${problem}`, { file, line });
}

/** The file's rows, read by the shared CSV reader: exactly `columns`, `description` optional at the end. */
function rowsOf(source: Source, columns: readonly string[]): { line: number; fields: Record<string, string> }[] {
  const all = [...columns, 'description'];
  const row = z.object(Object.fromEntries(all.map((column) => [column, z.string().default('')]))) as z.ZodType<Record<string, string>>;
  const rows = parseCsvTable(source.text, source.file, { columns: all, required: columns.length, row });
  if (rows.length === 0) throw failer(source.file)(1, 'no rows');
  return rows.map(({ line, ...fields }) => ({ line, fields }));
}

function parseBoolean(value: string, column: string, fail: (problem: string) => Error): boolean {
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  throw fail(`${column} must be true or false, not "${value}"`);
}

function parseLevels(source: Source): ComparisonLevel[] {
  const fail = failer(source.file);
  const levels: ComparisonLevel[] = [];
  const closed = new Set<string>();
  for (const { line, fields } of rowsOf(source, ['comparison', 'level', 'test', 'threshold', 'term_frequency', 'veto'])) {
    const problem = (text: string) => fail(line, text);
    const comparison = fields.comparison as ComparisonName;
    if (!(comparison in COMPARISONS)) throw problem(`unknown comparison "${fields.comparison}"; one of ${Object.keys(COMPARISONS).join(', ')}`);
    if (closed.has(comparison)) throw problem(`${comparison} already ended with its else level; else comes last`);
    if (!/^[a-z][a-z0-9_]*$/.test(fields.level!)) throw problem(`level "${fields.level}" must be lowercase letters, digits and _`);
    if (fields.level === 'missing') throw problem('level "missing" is reserved for a value missing on a side');
    if (levels.some((level) => level.comparison === comparison && level.level === fields.level)) throw problem(`${comparison} has a level ${fields.level} already`);
    const kind = COMPARISONS[comparison];
    const takes = TESTS[kind][fields.test!];
    if (takes === undefined) throw problem(`unknown test "${fields.test}" for ${comparison}; one of ${Object.keys(TESTS[kind]).join(', ')}`);
    let threshold: number | null = null;
    if (takes === 'none') {
      if (fields.threshold !== '') throw problem(`test ${fields.test} takes no threshold`);
    } else {
      threshold = Number(fields.threshold);
      const ok = fields.threshold !== '' && Number.isFinite(threshold) && (takes === 'similarity' ? threshold > 0 && threshold <= 1 : Number.isInteger(threshold) && threshold >= 1);
      if (!ok) throw problem(`test ${fields.test} needs a threshold ${takes === 'similarity' ? 'above 0 and at most 1' : 'that is a whole number of at least 1'}, not "${fields.threshold}"`);
    }
    const termFrequency = parseBoolean(fields.term_frequency!, 'term_frequency', problem);
    if (termFrequency && !(kind === 'name' && fields.test === 'same')) throw problem('term_frequency applies to a name comparison\'s same level only');
    const veto = parseBoolean(fields.veto!, 'veto', problem);
    if (fields.test === 'same_number' && comparison !== 'phone') throw problem('test same_number applies to phone only (the numbers in E.164)');
    if (fields.test === 'short_form' && comparison !== 'first_name') throw problem('test short_form applies to first_name only (the club\'s first_name_forms.csv)');
    if (fields.test === 'else') closed.add(comparison);
    levels.push({
      comparison,
      index: levels.filter((level) => level.comparison === comparison).length + 1,
      level: fields.level!,
      test: fields.test!,
      threshold,
      termFrequency,
      veto,
      description: fields.description!,
    });
  }
  for (const comparison of new Set(levels.map((level) => level.comparison))) {
    if (!closed.has(comparison)) {
      const last = levels.filter((level) => level.comparison === comparison).at(-1)!;
      throw fail(rowLineOf(source, last), `${comparison} has no else level: its last level must have test else`);
    }
  }
  return levels;
}

/** The line of a level's row, for a problem found after the rows were read. */
function rowLineOf(source: Source, level: ComparisonLevel): number {
  const lines = source.text.split(/\r?\n/);
  const at = lines.findIndex((line) => line.startsWith(`${level.comparison},${level.level},`));
  return at >= 0 ? at + 1 : 1;
}

function parseBlockingRules(source: Source): BlockingRule[] {
  const fail = failer(source.file);
  const rules: BlockingRule[] = [];
  for (const { line, fields } of rowsOf(source, ['rule', 'block_on', 'cap', 'predict', 'train'])) {
    const problem = (text: string) => fail(line, text);
    if (!/^[a-z][a-z0-9_]*$/.test(fields.rule!)) throw problem(`rule "${fields.rule}" must be lowercase letters, digits and _`);
    if (rules.some((rule) => rule.rule === fields.rule)) throw problem(`rule ${fields.rule} is named twice`);
    const keys = fields.block_on!.split('+').map((key) => key.trim());
    for (const key of keys) {
      if (!(BLOCK_KEYS as readonly string[]).includes(key)) throw problem(`unknown block key "${key}" in block_on; one of ${BLOCK_KEYS.join(', ')}, joined with +`);
    }
    if (new Set(keys).size !== keys.length) throw problem(`block_on names a key twice: ${fields.block_on}`);
    if (keys.includes('name_word') && (keys.includes('first_name') || keys.includes('last_name'))) throw problem('name_word (either word of the name) does not combine with first_name or last_name');
    const cap = Number(fields.cap);
    if (!Number.isInteger(cap) || cap < 2) throw problem(`cap must be a whole number of at least 2 (records a block value may hold before it is taken for a placeholder), not "${fields.cap}"`);
    const predict = parseBoolean(fields.predict!, 'predict', problem);
    const train = parseBoolean(fields.train!, 'train', problem);
    if (!predict && !train) throw problem('a rule neither predicts nor trains: set predict or train to true, or remove the row');
    rules.push({ rule: fields.rule!, index: rules.length, blockOn: keys as BlockKey[], cap, predict, train, description: fields.description! });
  }
  if (rules.length > 62) throw fail(1, 'at most 62 blocking rules (each has a bit in a 64-bit integer)');
  if (!rules.some((rule) => rule.predict)) throw fail(1, 'no rule with predict true: nothing would ever be compared');
  return rules;
}

function parseDeterministicRules(source: Source, levels: readonly ComparisonLevel[]): DeterministicRule[] {
  const fail = failer(source.file);
  const rules: DeterministicRule[] = [];
  for (const { line, fields } of rowsOf(source, ['rule', 'conditions'])) {
    const problem = (text: string) => fail(line, text);
    if (!/^[a-z][a-z0-9_]*$/.test(fields.rule!)) throw problem(`rule "${fields.rule}" must be lowercase letters, digits and _`);
    const conditions = fields.conditions!.split(/\s+and\s+/).map((condition) => {
      const match = /^([a-z_]+)=([a-z0-9_]+)$/.exec(condition.trim());
      if (!match) throw problem(`a condition is comparison=level, conditions joined with " and ": "${condition}"`);
      const [, comparison, level] = match;
      if (!levels.some((known) => known.comparison === comparison && known.level === level)) {
        throw problem(`unknown level ${comparison}=${level}; comparison_levels.csv has ${levels.filter((known) => known.comparison === comparison).map((known) => known.level).join(', ') || `no comparison ${comparison}`}`);
      }
      return { comparison: comparison as ComparisonName, level: level! };
    });
    rules.push({ rule: fields.rule!, conditions, description: fields.description! });
  }
  return rules;
}

function parseTraining(source: Source): TrainingSettings {
  const fail = failer(source.file);
  const values: Partial<TrainingSettings> = {};
  for (const { line, fields } of rowsOf(source, ['setting', 'value'])) {
    const key = fields.setting as keyof typeof TRAINING_SETTINGS;
    const range = TRAINING_SETTINGS[key];
    if (range === undefined) throw fail(line, `unknown setting "${fields.setting}"; one of ${Object.keys(TRAINING_SETTINGS).join(', ')}`);
    if (values[key] !== undefined) throw fail(line, `${key} is set twice`);
    const value = Number(fields.value);
    if (fields.value === '' || !Number.isFinite(value) || value < range.min || value > range.max || (range.integer && !Number.isInteger(value))) {
      throw fail(line, `${key} must be a${range.integer ? ' whole' : ''} number from ${range.min} to ${range.max}, not "${fields.value}"`);
    }
    values[key] = value;
  }
  const missing = Object.keys(TRAINING_SETTINGS).filter((key) => values[key as keyof TrainingSettings] === undefined);
  if (missing.length > 0) throw fail(1, `missing setting(s): ${missing.join(', ')}`);
  return values as TrainingSettings;
}
