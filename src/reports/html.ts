/** Text as HTML text or attribute value: every `<`, `>`, `&`, `"` and `'` becomes an entity. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char]!);
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Inline style shared by report pages and the index: readable on screen, plain on paper. */
export const PAGE_CSS = `
:root { color-scheme: light; --ink: #1d2433; --muted: #5b6475; --line: #d9dde5; --accent: #0b5cad; --warn: #8a5a00; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); margin: 0 auto; max-width: 1100px; padding: 24px; }
h1 { font-size: 1.7rem; margin: 0 0 4px; } h2 { font-size: 1.2rem; margin: 28px 0 8px; }
a { color: var(--accent); }
.lead { color: var(--muted); margin: 0 0 12px; }
.params, .meta { color: var(--muted); font-size: 0.9rem; }
.notice { border-left: 4px solid var(--warn); background: #fff7e6; padding: 8px 12px; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; white-space: nowrap; }
caption { text-align: left; color: var(--muted); caption-side: bottom; padding-top: 4px; font-size: 0.85rem; }
figure { margin: 0; } figure svg { max-width: 100%; height: auto; }
.alt { color: var(--muted); font-size: 0.85rem; }
dl.figures { display: flex; flex-wrap: wrap; gap: 12px; margin: 0; }
dl.figures div { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; min-width: 150px; }
dl.figures dt { color: var(--muted); font-size: 0.85rem; } dl.figures dd { margin: 0; font-size: 1.4rem; font-weight: 600; }
.files { font-size: 0.85rem; color: var(--muted); }
footer { margin-top: 36px; border-top: 1px solid var(--line); padding-top: 8px; color: var(--muted); font-size: 0.85rem; }
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  a { color: inherit; text-decoration: none; }
  .files, nav { display: none; }
  section, figure, tr { break-inside: avoid; }
  h2 { break-after: avoid; }
}
`;
