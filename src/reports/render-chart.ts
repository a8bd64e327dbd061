import type * as Vega from 'vega';
import type { TopLevelSpec } from 'vega-lite';
import type { CellValue } from './format-values.js';
import { defaultFormat, vegaNumberLocale } from './format-values.js';
import type { ChartBlock } from './report-definition.js';
import { chartKey, type DrawnCharts } from './drawn-charts.js';

type Channel = ChartBlock['x'];

/**
 * Vega and Vega-Lite, loaded with the first chart drawn: a command or report that draws none
 * (a definition error, `report --list`, a page of tables) does not pay for loading them.
 */
let chartEngines: Promise<[typeof import('vega'), typeof import('vega-lite')]> | undefined;

/**
 * Loads Vega and Vega-Lite once. A rendering whose reports have charts starts this before it
 * opens the warehouse, so their loading (CPU on this thread) goes on while DuckDB opens the file.
 */
export function loadChartEngines(): NonNullable<typeof chartEngines> {
  return (chartEngines ??= Promise.all([import('vega'), import('vega-lite')]));
}

/**
 * Draws a chart block as inline SVG on the server: the block becomes a Vega-Lite spec, Vega
 * renders it headless (`renderer: 'none'`, no DOM, no network) and escapes every text it
 * writes. The page then needs no JavaScript to show it. With `drawn`, a chart drawn before from
 * the same spec, locale and engines is taken from it instead of drawn again.
 */
export async function renderChartSvg(
  chart: ChartBlock,
  rows: readonly Record<string, CellValue>[],
  columnTypes: ReadonlyMap<string, string>,
  locale: { locale: string; currency: string; timeZone: string },
  drawn?: DrawnCharts,
): Promise<string> {
  const encode = (channel: Channel) => ({
    field: channel.field,
    type: channel.type ?? inferType(columnTypes.get(channel.field) ?? 'VARCHAR'),
    title: channel.title ?? channel.field,
  });
  const instantFields = [chart.x, chart.y, chart.color]
    .filter((channel): channel is Channel => channel !== undefined && (columnTypes.get(channel.field) ?? '').toUpperCase().startsWith('TIMESTAMP'))
    .map((channel) => channel.field);
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: 640,
    height: 260,
    // Title and text alternative are the page's (figcaption, aria-label); the SVG stays plain.
    data: { values: rows.map((row) => wallClock(row, instantFields, locale.timeZone)) },
    mark: { type: chart.type, tooltip: false, ...(chart.type === 'line' ? { point: true } : {}) },
    encoding: {
      x: encode(chart.x),
      y: encode(chart.y),
      ...(chart.color ? { color: encode(chart.color) } : {}),
    },
    config: { font: 'system-ui, sans-serif', view: { stroke: null } },
  };
  const [vega, vegaLite] = await loadChartEngines();
  const numberLocale = vegaNumberLocale(locale.locale, locale.currency);
  // the instants in the rows are wall-clock text already; the process's zone is in the key all
  // the same, as Vega reads such text in it
  const key = drawn && chartKey([vega.version, vegaLite.version, Intl.DateTimeFormat().resolvedOptions().timeZone, numberLocale, spec]);
  const kept = key === undefined ? undefined : await drawn!.get(key);
  if (kept !== undefined) return kept;
  const compiled = vegaLite.compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), {
    renderer: 'none',
    // A locale definition ({ number }), not the formatters vega.locale() returns: the View
    // ignores those silently. The time half stays Vega's default.
    locale: { number: numberLocale } as unknown as Vega.LocaleFormatters,
  });
  try {
    const svg = await view.toSVG();
    if (key !== undefined) await drawn!.put(key, svg);
    return svg;
  } finally {
    view.finalize();
  }
}

function inferType(duckdbType: string): 'quantitative' | 'nominal' | 'temporal' {
  const format = defaultFormat(duckdbType);
  if (format === 'integer' || format === 'number') return 'quantitative';
  if (format === 'date' || format === 'datetime') return 'temporal';
  return 'nominal';
}

/**
 * Instants as wall-clock text in the report's time zone, without an offset: Vega reads such
 * text as local time and labels it as written, so axes show club time whatever zone the
 * rendering process runs in.
 */
function wallClock(row: Record<string, CellValue>, fields: readonly string[], timeZone: string): Record<string, CellValue> {
  const copy = { ...row };
  for (const field of fields) {
    const value = copy[field];
    if (typeof value === 'string') copy[field] = wallClockFormat(timeZone).format(new Date(value)).replace(' ', 'T');
  }
  return copy;
}

const wallClocks = new Map<string, Intl.DateTimeFormat>();
// sv-SE formats as YYYY-MM-DD HH:mm:ss, the shape Date.parse reads as local time once the space is a T.
const wallClockFormat = (timeZone: string): Intl.DateTimeFormat => {
  let format = wallClocks.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('sv-SE', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
    wallClocks.set(timeZone, format);
  }
  return format;
};
