import MarkdownIt from 'markdown-it';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import {
  CHART_TYPES,
  chartBlockSchema,
  figuresBlockSchema,
  frontMatterSchema,
  tableBlockSchema,
} from './report-definition.js';
import type { ChartBlock, ChartType, DisplayBlock, FrontMatter, QueryBlock, ReportDefinition, ReportPart } from './report-definition.js';

/** Raw HTML in prose is shown as text: a report file can never inject markup into its page. */
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * Reads one report file: YAML front matter, Markdown prose, and fenced blocks
 * ```sql NAME```, ```table```, ```chart``` and ```figures``` (YAML). Returns every problem
 * found, each naming the block (by its line) and what is wrong, rather than the first one.
 */
export function parseReport(name: string, file: string, text: string): { report?: ReportDefinition; problems: string[] } {
  const problems: string[] = [];
  const match = FRONT_MATTER.exec(text);
  if (!match) return { problems: [`${file}: must start with YAML front matter between --- lines (title, params, personalData)`] };
  const meta = validate(frontMatterSchema, parseYamlText(match[1]!, `${file}: front matter`, problems), `${file}: front matter`, problems) as FrontMatter | undefined;
  const bodyOffset = match[0].split('\n').length - 1;

  const queries = new Map<string, QueryBlock>();
  const parts: ReportPart[] = [];
  let prose: ReturnType<typeof markdown.parse> = [];
  const flushProse = () => {
    if (prose.length > 0) parts.push({ kind: 'prose', html: markdown.renderer.render(prose, markdown.options, {}) });
    prose = [];
  };
  const counters = { table: 0, chart: 0, figures: 0 };

  for (const token of markdown.parse(text.slice(match[0].length), {})) {
    const [kind, ...rest] = token.type === 'fence' ? token.info.trim().split(/\s+/) : [];
    const line = (token.map?.[0] ?? 0) + bodyOffset + 1;
    const where = `${file}: ${kind} block at line ${line}`;
    if (kind === 'sql') {
      const queryName = rest[0];
      if (!queryName || !/^[a-z][a-z0-9_]*$/.test(queryName)) problems.push(`${where}: name the query after sql (\`\`\`sql matches), lowercase letters, digits and _`);
      else if (queries.has(queryName)) problems.push(`${where}: a second query named ${queryName}`);
      else queries.set(queryName, { name: queryName, sql: token.content, line });
    } else if (kind === 'table' || kind === 'chart' || kind === 'figures') {
      flushProse();
      const block = displayBlock(kind, `${kind}${++counters[kind]}`, line, token.content, where, problems);
      if (block) parts.push(block);
    } else {
      prose.push(token);
    }
  }
  flushProse();

  for (const part of parts) {
    if (part.kind === 'prose') continue;
    if (!queries.has(part.spec.query)) problems.push(`${file}: ${part.kind} block at line ${part.line}: query ${part.spec.query} is not defined by a \`\`\`sql ${part.spec.query}\`\`\` block`);
  }
  for (const param of meta?.params ?? []) {
    if (param.default !== undefined && param.defaultQuery !== undefined) problems.push(`${file}: front matter: parameter ${param.name} has both default and defaultQuery`);
    if (param.defaultQuery !== undefined && !queries.has(param.defaultQuery)) problems.push(`${file}: front matter: parameter ${param.name}: defaultQuery ${param.defaultQuery} is not a \`\`\`sql\`\`\` block`);
  }
  const names = (meta?.params ?? []).map((param) => param.name);
  for (const duplicate of names.filter((n, k) => names.indexOf(n) !== k)) problems.push(`${file}: front matter: parameter ${duplicate} is declared twice`);

  if (problems.length > 0 || !meta) return { problems };
  return { report: { name, file, meta, queries, parts }, problems };
}

function displayBlock(kind: DisplayBlock['kind'], id: string, line: number, content: string, where: string, problems: string[]): DisplayBlock | undefined {
  const data = parseYamlText(content, where, problems);
  if (data === undefined) return undefined;
  if (kind === 'table') {
    const spec = validate(tableBlockSchema, data, where, problems);
    return spec && { kind, id, line, spec };
  }
  if (kind === 'figures') {
    const spec = validate(figuresBlockSchema, data, where, problems);
    return spec && { kind, id, line, spec };
  }
  const spec = validate(chartBlockSchema, data, where, problems);
  if (!spec) return undefined;
  if (!(CHART_TYPES as readonly string[]).includes(spec.type)) {
    problems.push(`${where}: unknown chart type ${JSON.stringify(spec.type)}; known: ${CHART_TYPES.join(', ')}`);
    return undefined;
  }
  return { kind, id, line, spec: { ...spec, type: spec.type as ChartType } as ChartBlock };
}

function parseYamlText(text: string, where: string, problems: string[]): unknown {
  try {
    return parseYaml(text) ?? {};
  } catch (error) {
    problems.push(`${where}: not valid YAML: ${(error as Error).message.split('\n')[0]}`);
    return undefined;
  }
}

function validate<S extends z.ZodType>(schema: S, data: unknown, where: string, problems: string[]): z.output<S> | undefined {
  if (data === undefined) return undefined;
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    const path = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    problems.push(`${where}: ${path}${issue.message}`);
  }
  return undefined;
}
