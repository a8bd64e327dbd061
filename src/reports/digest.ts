import type { ValueFormat } from './report-definition.js';
import type { RenderingRecord } from './renderings.js';
import type { ValueFormatter } from './format-values.js';

/** The contract's limit: a digest fits a chat message or an e-mail preview. */
export const DIGEST_MAX_LINES = 40;

/**
 * `summary.md`: the report's headline figures and their change since `previous` (the newest
 * earlier rendering with the same parameters). A report that shows personal data keeps to
 * numbers here: a text figure could be a name.
 */
export function renderDigest(current: RenderingRecord, previous: RenderingRecord | undefined, formatter: ValueFormatter): string {
  const lines = [`# ${current.title}`, ''];
  const params = Object.entries(current.params).map(([name, value]) => `${name} ${value ?? '—'}`).join(', ');
  lines.push(`Rendered ${formatter.instant(new Date(current.renderedAt))}${params ? ` · ${params}` : ''}`);
  const sources = current.sources.filter((source) => source.newestExtractedAt);
  if (sources.length > 0) lines.push(`Data: ${sources.map((s) => `${s.source} extracted ${formatter.instant(new Date(s.newestExtractedAt!))}`).join('; ')}`);
  lines.push('');
  lines.push(previous ? `Change since ${formatter.instant(new Date(previous.renderedAt))}:` : 'First rendering with these parameters: no change to show.');
  lines.push('');

  const before = new Map(previous?.figures.map((figure) => [figure.label, figure.value]) ?? []);
  const figures = current.figures.filter((figure) => !current.personalData || typeof figure.value === 'number' || figure.value === null);
  const room = DIGEST_MAX_LINES - lines.length - 2;
  for (const figure of figures.slice(0, room)) {
    const format = figure.format as ValueFormat;
    const shown = figure.value === null ? 'not available' : formatter.format(figure.value, format);
    lines.push(`- ${figure.label}: ${shown}${change(figure.value, before.get(figure.label), format, formatter, previous !== undefined)}`);
  }
  if (figures.length > room) lines.push(`- … ${figures.length - room} more figures on the page`);
  if (figures.length === 0) lines.push('- no headline figures');
  lines.push('', 'Full report: index.html');
  return `${lines.slice(0, DIGEST_MAX_LINES).join('\n')}\n`;
}

function change(value: unknown, before: unknown, format: ValueFormat, formatter: ValueFormatter, compared: boolean): string {
  if (!compared || typeof value !== 'number') return '';
  if (typeof before !== 'number') return ' (new)';
  const delta = value - before;
  if (delta === 0) return ' (unchanged)';
  // A percentage changes by points, not by a percentage of itself.
  const shown = format === 'percent' ? `${formatter.format(Math.abs(delta) * 100, 'number')} points` : formatter.format(Math.abs(delta), format === 'integer' || format === 'currency' ? format : 'number');
  return ` (${delta > 0 ? '+' : '−'}${shown})`;
}
