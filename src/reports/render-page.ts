import type { Dataset } from './run-query.js';
import { defaultFormat } from './format-values.js';
import type { CellValue, ValueFormatter } from './format-values.js';
import { escapeHtml, PAGE_CSS } from './html.js';
import { renderChartSvg } from './render-chart.js';
import type { DrawnCharts } from './drawn-charts.js';
import type { DisplayBlock, FiguresBlock, ReportDefinition, TableColumn, ValueFormat } from './report-definition.js';

/** What became of one query: its rows, or why its section cannot be shown. */
export type QueryOutcome = { status: 'ok'; dataset: Dataset } | { status: 'unavailable'; reason: string };

/** Where a report's data came from, for the footer: the newest load of each source it reads. */
export interface SourceFreshness {
  source: string;
  /** ISO instant of the newest `_extracted_at` loaded, or null when nothing is loaded. */
  newestExtractedAt: string | null;
  /** Run id of that extraction. */
  runId: string | null;
}

/** A headline figure as the page shows it and the digest compares it. */
export interface Figure {
  label: string;
  value: CellValue;
  format: ValueFormat;
}

export interface PageInput {
  report: ReportDefinition;
  params: { name: string; value: string | null }[];
  outcomes: ReadonlyMap<string, QueryOutcome>;
  formatter: ValueFormatter;
  renderedAt: Date;
  sources: readonly SourceFreshness[];
  /** Rows shown per table; the data files hold them all. */
  maxRows: number;
  /** Charts drawn before, taken when a chart's spec is the same (drawn-charts.ts); absent: every chart is drawn. */
  drawnCharts?: DrawnCharts;
}

/**
 * The rendering's `index.html`: one file with inline CSS and inline SVG, no script and no
 * external reference. Every value from the data passes through {@link escapeHtml}; prose is
 * Markdown rendered with raw HTML disabled.
 */
export async function renderPage(input: PageInput): Promise<{ html: string; figures: Figure[] }> {
  const { report, formatter } = input;
  const figures: Figure[] = [];
  const body: string[] = [];
  for (const part of report.parts) {
    if (part.kind === 'prose') body.push(part.html);
    else body.push(await renderBlock(part, input, figures));
  }
  // Figures are aggregates with a row even over nothing, so only tables and charts tell.
  const listed = report.parts.flatMap((part) => (part.kind === 'table' || part.kind === 'chart' ? [input.outcomes.get(part.spec.query)!] : []));
  const noData = listed.every((outcome) => outcome.status !== 'ok' || outcome.dataset.rowCount === 0);
  const params = input.params.length === 0 ? '' : `<p class="params">${input.params.map((p) => `${escapeHtml(p.name)}: <strong>${escapeHtml(p.value ?? '—')}</strong>`).join(' · ')}</p>`;
  const html = `<!doctype html>
<html lang="${escapeHtml(formatter.options.locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(report.meta.title)}</title>
<style>${PAGE_CSS}</style>
</head>
<body>
<nav><a href="../../index.html">All reports</a></nav>
<header>
<h1>${escapeHtml(report.meta.title)}</h1>
${report.meta.description ? `<p class="lead">${escapeHtml(report.meta.description)}</p>` : ''}
${params}
</header>
<main>
${noData ? '<p class="notice" id="no-data">No data yet: the warehouse holds nothing this report can show with these parameters. A new warehouse needs fanlake extract, load and build (or fanlake run) first.</p>' : ''}
${body.join('\n')}
</main>
${renderFooter(input)}
</body>
</html>
`;
  return { html, figures };
}

async function renderBlock(block: DisplayBlock, input: PageInput, figures: Figure[]): Promise<string> {
  const outcome = input.outcomes.get(block.spec.query)!;
  const heading = block.spec.title ? `<h2>${escapeHtml(block.spec.title)}</h2>` : '';
  if (outcome.status === 'unavailable') {
    // a figure per row has no rows to name it by
    if (block.kind === 'figures') figures.push(...block.spec.items.flatMap((item) => (item.label === undefined ? [] : [{ label: item.label, value: null, format: item.format ?? 'number' }])));
    return `<section class="unavailable" id="${block.id}">${heading}<p class="notice">Not available: ${escapeHtml(outcome.reason)}</p></section>`;
  }
  const { dataset } = outcome;
  const files = `<p class="files">Data: <a href="${block.spec.query}.csv">${block.spec.query}.csv</a> · <a href="${block.spec.query}.parquet">${block.spec.query}.parquet</a></p>`;
  const types = new Map(dataset.columns.map((column) => [column.name, column.type]));
  if (block.kind === 'figures') {
    const items = figureValues(block.spec, dataset, types);
    figures.push(...items);
    const list = items.map((item) => `<div><dt>${escapeHtml(item.label)}</dt><dd>${escapeHtml(item.value === null ? '—' : input.formatter.format(item.value, item.format))}</dd></div>`);
    return `<section class="figures" id="${block.id}">${heading}<dl class="figures">${list.join('')}</dl></section>`;
  }
  if (dataset.rowCount === 0) return `<section id="${block.id}">${heading}<p class="notice">${escapeHtml(block.spec.empty ?? 'No data yet for this section.')}</p></section>`;
  if (block.kind === 'chart') {
    const svg = await renderChartSvg(block.spec, dataset.rows, types, input.formatter.options, input.drawnCharts);
    return `<section class="chart" id="${block.id}">
<figure>
<figcaption><h2>${escapeHtml(block.spec.title)}</h2></figcaption>
<div role="img" aria-label="${escapeHtml(`${block.spec.title}: ${block.spec.alt}`)}">${svg}</div>
<p class="alt">${escapeHtml(block.spec.alt)}${dataset.rowCount > dataset.rows.length ? ` Drawn from the first ${dataset.rows.length} of ${dataset.rowCount} rows.` : ''}</p>
</figure>
${files}
</section>`;
  }
  return `<section class="table" id="${block.id}">${heading}${renderTable(block.spec.columns, dataset, types, input)}${files}</section>`;
}

function renderTable(declared: (string | TableColumn)[] | undefined, dataset: Dataset, types: Map<string, string>, input: PageInput): string {
  const columns: TableColumn[] = (declared ?? dataset.columns.map((column) => column.name)).map((column) => (typeof column === 'string' ? { field: column } : column));
  const formatOf = (column: TableColumn) => column.format ?? defaultFormat(types.get(column.field) ?? 'VARCHAR');
  const numeric = (column: TableColumn) => ['integer', 'number', 'percent', 'currency'].includes(formatOf(column));
  const cls = (column: TableColumn) => (numeric(column) ? ' class="num"' : '');
  const head = columns.map((column) => `<th scope="col"${cls(column)}>${escapeHtml(column.label ?? column.field)}</th>`).join('');
  const shownRows = dataset.rows.slice(0, input.maxRows);
  const rows = shownRows
    .map((row) => `<tr>${columns.map((column) => `<td${cls(column)}>${escapeHtml(input.formatter.format(row[column.field], formatOf(column)))}</td>`).join('')}</tr>`)
    .join('\n');
  const shown = dataset.rowCount > shownRows.length ? `<caption>First ${shownRows.length} of ${dataset.rowCount} rows; the data files hold them all.</caption>` : `<caption>${dataset.rowCount} rows</caption>`;
  return `<table>${shown}<thead><tr>${head}</tr></thead>\n<tbody>\n${rows}\n</tbody></table>`;
}

function figureValues(spec: FiguresBlock, dataset: Dataset, types: Map<string, string>): Figure[] {
  const first = dataset.rows[0];
  return spec.items.flatMap((item) => {
    const format = item.format ?? defaultFormat(types.get(item.field) ?? 'VARCHAR');
    if (item.labelField === undefined) return [{ label: item.label!, value: first?.[item.field] ?? null, format }];
    return dataset.rows.map((row) => ({ label: String(row[item.labelField!] ?? '—'), value: row[item.field] ?? null, format }));
  });
}

function renderFooter(input: PageInput): string {
  const { formatter } = input;
  const sources = input.sources.length === 0
    ? 'no data loaded yet'
    : input.sources
        .map((source) => `${escapeHtml(source.source)}: newest data extracted ${source.newestExtractedAt ? escapeHtml(formatter.instant(new Date(source.newestExtractedAt))) : '—'}${source.runId ? ` (run ${escapeHtml(source.runId)})` : ''}`)
        .join('; ');
  return `<footer>
<p>Data: ${sources}.</p>
<p>Rendered ${escapeHtml(formatter.instant(input.renderedAt))} from <code>${escapeHtml(input.report.file)}</code>.</p>
</footer>`;
}
