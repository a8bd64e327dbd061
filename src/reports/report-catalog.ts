import type { DuckDBConnection } from '@duckdb/node-api';
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../core/errors.js';
import { DEFAULT_MODELS_DIR, discoverProject, type ModelProject, SOURCE_SCHEMA } from '../models/discover-project.js';
import { parseSelects } from '../models/sql-references.js';
import { META_RELATIONS } from '../warehouse/meta-schema.js';
import { checkQueries } from './check-queries.js';
import type { QueryShape } from './check-queries.js';
import type { ReportDefinition } from './report-definition.js';

/** `<package root>/reports`, wherever the code runs from (`src/reports` or `dist/reports`). */
export const DEFAULT_REPORTS_DIR = fileURLToPath(new URL('../../reports', import.meta.url));

const REPORT_NAME = /^[a-z0-9][a-z0-9_-]*$/;

/** A report whose file parsed and whose queries DuckDB's parser accepted. */
export interface CheckedReport extends ReportDefinition {
  shapes: Map<string, QueryShape>;
}

/** The reports and what the engine needs to know about the models they read. */
export interface ReportCatalog {
  reports: CheckedReport[];
  /** `marts.<model>` → every `raw.*` table it rests on, transitively. */
  sourcesOf: ReadonlyMap<string, readonly string[]>;
  /** `raw.*` tables declared optional in `sql/sources.json` (opt-in fan-outs such as loyalty). */
  optionalSources: ReadonlySet<string>;
}

/**
 * Reads every `<reportsDir>/*.md` (names starting with `_` or `.` are ignored) and checks it
 * against the models in `modelsDir`, with `scratch` (an in-memory DuckDB) as the parser.
 *
 * @throws UsageError listing every problem of every file, before anything renders.
 */
export async function loadReportCatalog(scratch: DuckDBConnection, reportsDir = DEFAULT_REPORTS_DIR, modelsDir = DEFAULT_MODELS_DIR): Promise<ReportCatalog> {
  const files = (await readdir(reportsDir).catch(() => [] as string[]))
    .filter((file) => file.endsWith('.md') && !file.startsWith('_') && !file.startsWith('.'))
    .sort();
  // loaded here, with its Markdown and YAML parsers: a run whose catalog is kept never parses (catalog-cache.ts)
  const { parseReport } = await import('./parse-report.js');
  const project = await discoverProject(modelsDir);
  const readable = new Set([...project.models.filter((model) => model.schema === 'marts').map((model) => model.relation), ...META_RELATIONS]);

  const problems: string[] = [];
  const reports: CheckedReport[] = [];
  for (const file of files) {
    const name = basename(file, '.md');
    const display = `${basename(reportsDir)}/${file}`;
    if (!REPORT_NAME.test(name)) {
      problems.push(`${display}: a report's file name is its name: use lowercase letters, digits, - and _`);
      continue;
    }
    const parsed = parseReport(name, display, await readFile(join(reportsDir, file), 'utf8'));
    problems.push(...parsed.problems);
    if (!parsed.report) continue;
    const checked = await checkQueries(scratch, parsed.report, readable);
    problems.push(...checked.problems);
    reports.push({ ...parsed.report, shapes: checked.shapes });
  }
  if (problems.length > 0) throw new UsageError(`report definitions have problems:\n  ${problems.join('\n  ')}`);

  const optionalSources = new Set(project.sources.filter((source) => source.optional).map((source) => source.relation.toLowerCase()));
  return { reports, sourcesOf: await sourcesOfModels(scratch, project), optionalSources };
}

/**
 * Every model's raw tables, transitively, from what each model's SQL names (DuckDB's parser).
 * Not the build's graph: that parses every macro too (a database of its own, in which each is
 * created: 0.3-0.8 s of every `run` and `report`), for links the reports do not need. A model
 * the parser refuses reads nothing here; the build says what is wrong with it.
 */
async function sourcesOfModels(scratch: DuckDBConnection, project: ModelProject): Promise<Map<string, string[]>> {
  const parsed = await parseSelects(scratch, project.models.map((model) => model.sql));
  const reads = new Map(
    project.models.map((model, at) => {
      const found = parsed[at]!;
      return [model.relation, found.ok ? found.references.map((ref) => `${ref.schema}.${ref.table}`).filter((relation) => relation !== model.relation) : []];
    }),
  );
  const sourcesOf = new Map<string, string[]>(project.seeds.map((seed) => [seed.relation, []]));
  const visit = (relation: string, within: ReadonlySet<string>): string[] => {
    const known = sourcesOf.get(relation);
    if (known !== undefined) return known;
    const sources = new Set<string>();
    for (const read of within.has(relation) ? [] : (reads.get(relation) ?? [])) {
      if (read.startsWith(`${SOURCE_SCHEMA}.`)) sources.add(read);
      else if (reads.has(read)) for (const source of visit(read, new Set([...within, relation]))) sources.add(source);
    }
    const sorted = [...sources].sort();
    sourcesOf.set(relation, sorted);
    return sorted;
  };
  for (const model of project.models) visit(model.relation, new Set());
  return sourcesOf;
}
