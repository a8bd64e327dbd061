import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { quoteLiteral } from '../../core/duckdb.js';
import { UsageError } from '../../core/errors.js';
import { DEFAULT_MODELS_DIR, MACRO_SCHEMA, type MacroDefinition } from '../discover-project.js';
import { type CsvRow, type CsvTableSpec, parseCsvTable } from './csv-table.js';

/**
 * What a club decides lives in files the club owns, beside its config file (`club.dir`): what
 * its codes and texts mean. Each mapping is keyed on a code AND its name or text, so the
 * defaults (our simulator's club, in `defaults/club/`) apply only where both match exactly, and
 * another club's codes show as unmapped or contradicting instead of being read as ours.
 *
 * Every file is read, validated and turned into the table macro `macros.club_<name>()` by one
 * mechanism, so the models read plain SQL and a changed file is a changed macro: exactly the
 * models that read it are rebuilt (build-state.ts). A row with `confirmed` = no is a suggestion
 * (`fanlake doctor --write`) and means nothing until the club says yes.
 */
/** The defaults ship beside `sql/`, in the package's `defaults/club/`. */
export const DEFAULT_CLUB_FILES_DIR = join(DEFAULT_MODELS_DIR, '..', 'defaults', 'club');

const whole = z.string().regex(/^-?[0-9]+$/, 'must be a whole number').transform(Number);
const text = z.string().min(1, 'must not be empty');
// A name or text as an API sends it, compared exactly: even an empty one is a text a code can carry.
const apiText = z.string();
const word = z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be one lowercase word such as club_marketing (letters, digits, _)');
const yesNo = z
  .enum(['yes', 'no', 'true', 'false', ''], { error: 'must be yes or no' })
  .transform((value) => value !== 'no' && value !== 'false');
const confirmed = yesNo.default(true);

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `must be one of ${values.join(', ')}` });
}

export const STATUS_GROUPS = ['paid', 'cancelled', 'refunded', 'pending', 'other'] as const;
export const PRODUCT_LINES = ['ticket', 'season_ticket'] as const;
export const CHANNELS = ['email', 'sms', 'push'] as const;
/**
 * What a consent is for, as fanlake counts it: the club's own marketing (dim_fan's consent flags,
 * the reach of top fans), its partners', profiling, service messages, or another purpose that
 * counts as none of them. Fixed words, as status groups and product lines are, so a club cannot
 * name its own marketing otherwise and find those figures silently empty; its own words for
 * each go in display_names.csv.
 */
export const PURPOSES = ['club_marketing', 'partner_marketing', 'profiling', 'transactional', 'other'] as const;

/** One club file: its CSV shape, and the typed columns of the macro it becomes. */
interface ClubFileSpec<T extends { confirmed: boolean }> extends CsvTableSpec<T> {
  name: string;
  /** What the file decides, for `doctor` and errors. */
  describe: string;
  /** Column name and DuckDB type of each value the macro returns, in order. */
  sqlColumns: readonly (readonly [keyof T & string, 'BIGINT' | 'VARCHAR' | 'BOOLEAN'])[];
}

const consentMeanings = {
  name: 'consent_meanings',
  describe: 'what each consent means: purpose and channel, by its id and name (ticketing) or text id and text (engagement)',
  columns: ['system', 'consent_id', 'consent_name', 'purpose', 'channel', 'display_name', 'confirmed'],
  required: 5,
  row: z
    .object({
      system: oneOf(['ticketing', 'engagement']),
      consent_id: whole,
      consent_name: apiText,
      // empty only in a suggestion not yet confirmed (below)
      purpose: z.enum(['', ...PURPOSES], { error: `must be one of ${PURPOSES.join(', ')} (the club's own words for it go in display_names.csv)` }),
      channel: z.union([oneOf(CHANNELS), z.literal('')]).transform((value) => value || null),
      display_name: z.string().default(''),
      confirmed,
    })
    .refine((row) => !row.confirmed || row.purpose !== '', { message: 'purpose must be given (a suggestion may leave it empty until it is confirmed)', path: ['purpose'] }),
  key: ['system', 'consent_id', 'consent_name', 'channel'],
  sqlColumns: [['system', 'VARCHAR'], ['consent_id', 'BIGINT'], ['consent_name', 'VARCHAR'], ['purpose', 'VARCHAR'], ['channel', 'VARCHAR'], ['display_name', 'VARCHAR']],
} satisfies ClubFileSpec<{ system: string; consent_id: number; consent_name: string; purpose: string; channel: string | null; display_name: string; confirmed: boolean }>;

const orderStatusGroups = {
  name: 'order_status_groups',
  describe: 'which group each order status of tickets and merchandise is in, by its id and name',
  columns: ['order_status_id', 'order_status_name', 'status_group', 'confirmed'],
  required: 3,
  row: z.object({ order_status_id: whole, order_status_name: apiText, status_group: oneOf(STATUS_GROUPS), confirmed }),
  key: ['order_status_id', 'order_status_name'],
  sqlColumns: [['order_status_id', 'BIGINT'], ['order_status_name', 'VARCHAR'], ['status_group', 'VARCHAR']],
} satisfies ClubFileSpec<{ order_status_id: number; order_status_name: string; status_group: string; confirmed: boolean }>;

const orderTypeGroups = {
  name: 'order_type_groups',
  describe: 'which product line each order type of a ticket is, by its id and text',
  columns: ['order_type_id', 'order_type_name', 'product_line', 'confirmed'],
  required: 3,
  row: z.object({ order_type_id: whole, order_type_name: apiText, product_line: oneOf(PRODUCT_LINES), confirmed }),
  key: ['order_type_id', 'order_type_name'],
  sqlColumns: [['order_type_id', 'BIGINT'], ['order_type_name', 'VARCHAR'], ['product_line', 'VARCHAR']],
} satisfies ClubFileSpec<{ order_type_id: number; order_type_name: string; product_line: string; confirmed: boolean }>;

const salesChannels = {
  name: 'sales_channels',
  describe: 'one name for each sales channel of tickets and merchandise, and whether it is the club\'s app',
  columns: ['resource', 'channel', 'display_name', 'is_app', 'confirmed'],
  required: 4,
  row: z.object({ resource: oneOf(['tickets', 'merchandise']), channel: apiText, display_name: text, is_app: yesNo, confirmed }),
  key: ['resource', 'channel'],
  sqlColumns: [['resource', 'VARCHAR'], ['channel', 'VARCHAR'], ['display_name', 'VARCHAR'], ['is_app', 'BOOLEAN']],
} satisfies ClubFileSpec<{ resource: string; channel: string; display_name: string; is_app: boolean; confirmed: boolean }>;

const displayNames = {
  name: 'display_names',
  describe: 'what reports call each purpose, channel, product line and status group, in the club\'s words',
  columns: ['kind', 'code', 'display_name', 'confirmed'],
  required: 3,
  row: z.object({ kind: oneOf(['purpose', 'channel', 'product_line', 'status_group']), code: word, display_name: text, confirmed }),
  key: ['kind', 'code'],
  sqlColumns: [['kind', 'VARCHAR'], ['code', 'VARCHAR'], ['display_name', 'VARCHAR']],
} satisfies ClubFileSpec<{ kind: string; code: string; display_name: string; confirmed: boolean }>;

const firstNameForms = {
  name: 'first_name_forms',
  describe: 'first names that are a short form or nickname of a full name (Bob, Robert): the identity model compares them at the level short_form, with its own learned weight',
  columns: ['short_form', 'full_name', 'confirmed'],
  required: 2,
  row: z.object({ short_form: text, full_name: text, confirmed }),
  key: ['short_form', 'full_name'],
  sqlColumns: [['short_form', 'VARCHAR'], ['full_name', 'VARCHAR']],
} satisfies ClubFileSpec<{ short_form: string; full_name: string; confirmed: boolean }>;

/** The club's files, by name: the mappings `doctor` checks, then the names reports use and the first names' forms identity resolution uses. */
export const CLUB_MAPPINGS = [consentMeanings, orderStatusGroups, orderTypeGroups, salesChannels] as const;
export const CLUB_FILES = [...CLUB_MAPPINGS, displayNames, firstNameForms] as const;
export type ClubMappingName = (typeof CLUB_FILES)[number]['name'];
type AnySpec = ClubFileSpec<{ confirmed: boolean } & Record<string, unknown>>;

/** One club file as read: where it came from and its rows, suggestions included. */
export interface ClubFile {
  name: ClubMappingName;
  /** The file read: the club's, or the default. */
  path: string;
  fromDefaults: boolean;
  rows: CsvRow<Record<string, unknown> & { confirmed: boolean }>[];
}

/** The path of a club file: in the club's folder when it is there, else the default. */
export async function locateClubFile(name: string, clubDir: string | undefined, defaultsDir = DEFAULT_CLUB_FILES_DIR): Promise<{ path: string; fromDefaults: boolean; text: string }> {
  if (clubDir) {
    const path = join(clubDir, `${name}.csv`);
    const found = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw new UsageError(`club file ${path} cannot be read: ${error.message}`, { file: path });
    });
    if (found !== undefined) return { path, fromDefaults: false, text: found };
  }
  const path = join(defaultsDir, `${name}.csv`);
  return { path, fromDefaults: true, text: await readFile(path, 'utf8') };
}

/**
 * Reads and validates every club mapping file.
 *
 * @throws UsageError `file:line: problem` for the first malformed line, unknown word or
 *   repeated key (exit 2).
 */
export async function readClubFiles(clubDir: string | undefined, defaultsDir = DEFAULT_CLUB_FILES_DIR): Promise<ClubFile[]> {
  return Promise.all(
    CLUB_FILES.map(async (spec) => {
      const { path, fromDefaults, text: contents } = await locateClubFile(spec.name, clubDir, defaultsDir);
      const rows = parseCsvTable(contents, path, spec as unknown as AnySpec);
      return { name: spec.name, path, fromDefaults, rows };
    }),
  );
}

/** The SQL macro name a club file becomes: `macros.club_<name>()`. */
export function clubMacroName(name: string): string {
  return `club_${name}`;
}

/**
 * A club file as the table macro `macros.club_<name>()`: its confirmed rows with typed columns
 * (an empty file is an empty table of the same columns).
 */
export function clubFileMacro(file: Pick<ClubFile, 'name' | 'path' | 'rows'>): MacroDefinition {
  const spec = CLUB_FILES.find((candidate) => candidate.name === file.name)! as unknown as AnySpec;
  const names = spec.sqlColumns.map(([column]) => column).join(', ');
  const literal = (value: unknown, type: string) =>
    value === null || value === undefined ? `null::${type}` : type === 'VARCHAR' ? quoteLiteral(String(value)) : `${String(value)}::${type}`;
  const rows = file.rows.filter((row) => row.confirmed);
  const body =
    rows.length === 0
      ? `select * from (values (${spec.sqlColumns.map(([, type]) => `null::${type}`).join(', ')})) as club(${names}) limit 0`
      : `select * from (values\n${rows.map((row) => `    (${spec.sqlColumns.map(([column, type]) => literal(row[column], type)).join(', ')})`).join(',\n')}\n) as club(${names})`;
  return {
    name: clubMacroName(file.name),
    file: `club file ${file.path}`,
    sql: `create or replace macro ${MACRO_SCHEMA}.${clubMacroName(file.name)}() as table\n${body};\n`,
    description: `The club's ${spec.describe} (${file.name}.csv in the club's folder, setting FANLAKE_CLUB_DIR).`,
  };
}

/** Empty club macros, so a model graph can be parsed without reading any club's files. */
export function emptyClubMacros(): MacroDefinition[] {
  return CLUB_FILES.map((spec) => clubFileMacro({ name: spec.name, path: 'none', rows: [] }));
}

/**
 * On the first use of a club folder that does not exist yet, writes the default mapping files
 * into it, so the club owns them from then on (a warehouse of the previous version, whose
 * mappings lived in `sql/seeds/`, goes on with the same meanings). Returns what it did, for
 * the output, or nothing when the folder was there.
 */
export async function ensureClubDir(clubDir: string | undefined, defaultsDir = DEFAULT_CLUB_FILES_DIR): Promise<string | undefined> {
  if (!clubDir) return undefined;
  const exists = await stat(clubDir).then((info) => info.isDirectory(), () => false);
  if (exists) return undefined;
  await mkdir(clubDir, { recursive: true });
  // Read and written, not copied: a copy keeps the checkout's mode, a new file gets the CLI's owner-only umask.
  for (const spec of CLUB_FILES) await writeFile(join(clubDir, `${spec.name}.csv`), await readFile(join(defaultsDir, `${spec.name}.csv`)));
  return `created the club folder ${clubDir} with the default mappings and names (${CLUB_FILES.map((spec) => `${spec.name}.csv`).join(', ')}); the mappings apply only where a code and its name match exactly: fanlake doctor lists what this club's data still needs`;
}
