import * as z from 'zod';

/** Types a report parameter may declare; each says how a `--param k=v` text becomes a bound value. */
export const PARAM_TYPES = ['text', 'integer', 'number', 'date', 'boolean'] as const;
export type ParamType = (typeof PARAM_TYPES)[number];

/** Marks a chart may draw; anything else is a definition error. */
export const CHART_TYPES = ['bar', 'line', 'area', 'point'] as const;
export type ChartType = (typeof CHART_TYPES)[number];

/** How a value is shown in tables and figures; the default follows the column's SQL type. */
export const VALUE_FORMATS = ['text', 'integer', 'number', 'percent', 'currency', 'date', 'datetime'] as const;
export type ValueFormat = (typeof VALUE_FORMATS)[number];

/** Fenced blocks that are report content rather than prose: ```sql NAME```, ```table```, ```chart```, ```figures```. */
export const DISPLAY_BLOCKS = ['table', 'chart', 'figures'] as const;
export type DisplayKind = (typeof DISPLAY_BLOCKS)[number];

const NAME = /^[a-z][a-z0-9_]*$/;
const name = z.string().regex(NAME, 'must be lowercase letters, digits and _ (starting with a letter)');

export const paramSchema = z.strictObject({
  name,
  type: z.enum(PARAM_TYPES, { error: `must be one of ${PARAM_TYPES.join(', ')}` }).default('text'),
  description: z.string().optional(),
  /** A literal default. */
  default: z.union([z.string(), z.number(), z.boolean()]).optional(),
  /** Or the first value of the first row of a named ```sql``` block (for example the current season). */
  defaultQuery: name.optional(),
});

/** The YAML front matter between `---` lines at the top of a report file. */
export const frontMatterSchema = z.strictObject({
  title: z.string().min(1),
  description: z.string().optional(),
  /** True when the report shows names, e-mails or phones: its digest then keeps to figures. */
  personalData: z.boolean().default(false),
  params: z.array(paramSchema).default([]),
});

const column = z.strictObject({
  field: z.string().min(1),
  label: z.string().optional(),
  format: z.enum(VALUE_FORMATS, { error: `must be one of ${VALUE_FORMATS.join(', ')}` }).optional(),
});

export const tableBlockSchema = z.strictObject({
  query: name,
  title: z.string().min(1),
  description: z.string().optional(),
  /** Shown instead of the table when the query has no rows (default: "No data yet for this section."). */
  empty: z.string().optional(),
  /** Columns to show, in order; every column of the query when absent. */
  columns: z.array(z.union([z.string().min(1), column])).optional(),
});

const channel = z.strictObject({
  field: z.string().min(1),
  title: z.string().optional(),
  type: z.enum(['quantitative', 'nominal', 'ordinal', 'temporal']).optional(),
});

export const chartBlockSchema = z.strictObject({
  query: name,
  type: z.string().min(1),
  title: z.string().min(1),
  /** The text alternative: what the chart shows, for readers who cannot see it. */
  alt: z.string().min(1),
  /** Shown instead of the chart when the query has no rows. */
  empty: z.string().optional(),
  x: channel,
  y: channel,
  color: channel.optional(),
});

const figureItem = column
  .extend({
    /** A figure from the query's first row, under this name. */
    label: z.string().min(1).optional(),
    /** Or one figure per row of the query, named by this column's value (names that come from the data, such as the club's purposes). */
    labelField: z.string().min(1).optional(),
  })
  .refine((item) => (item.label === undefined) !== (item.labelField === undefined), { message: 'give either label (one figure from the first row) or labelField (one figure per row)' });

export const figuresBlockSchema = z.strictObject({
  query: name,
  title: z.string().optional(),
  /** Headline figures; they are also the digest's figures. */
  items: z.array(figureItem).min(1),
});

export type ParamDefinition = z.infer<typeof paramSchema>;
export type FrontMatter = z.infer<typeof frontMatterSchema>;
export type TableColumn = z.infer<typeof column>;
export type TableBlock = z.infer<typeof tableBlockSchema>;
export type ChartBlock = z.infer<typeof chartBlockSchema> & { type: ChartType };
export type FiguresBlock = z.infer<typeof figuresBlockSchema>;

/** A ```sql NAME``` block: one SELECT over `marts.*` and `meta.*`, parameters as `$name`. */
export interface QueryBlock {
  name: string;
  sql: string;
  /** 1-based line of the fence in the report file, for messages. */
  line: number;
}

export type DisplayBlock =
  | { kind: 'table'; id: string; line: number; spec: TableBlock }
  | { kind: 'chart'; id: string; line: number; spec: ChartBlock }
  | { kind: 'figures'; id: string; line: number; spec: FiguresBlock };

/** The page in order: prose (already rendered HTML, raw HTML disabled) and display blocks. */
export type ReportPart = { kind: 'prose'; html: string } | DisplayBlock;

/** A parsed, validated report file. */
export interface ReportDefinition {
  /** The file name without `.md`: the folder of its renderings. */
  name: string;
  /** Path for messages: `reports/match-day.md`. */
  file: string;
  meta: FrontMatter;
  queries: Map<string, QueryBlock>;
  parts: ReportPart[];
}
