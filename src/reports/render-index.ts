import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/atomic-file.js';
import type { ValueFormatter } from './format-values.js';
import { escapeHtml, PAGE_CSS } from './html.js';
import { LATEST, listRenderings, readRenderingRecord } from './renderings.js';
import type { RenderingRecord } from './renderings.js';

/** `<out>/index.html`. */
export const INDEX_FILE = 'index.html';

/**
 * Rewrites `<out>/index.html` from what is on disk: every report folder with renderings, its
 * newest rendering (when, with which parameters, from which data) and links to the earlier ones.
 */
export async function writeIndex(outDir: string, formatter: ValueFormatter, now: Date): Promise<string> {
  const entries = await readdir(outDir, { withFileTypes: true }).catch(() => []);
  const reports: { name: string; newest: RenderingRecord; renderings: string[] }[] = [];
  for (const entry of entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).sort((a, b) => a.name.localeCompare(b.name))) {
    const renderings = await listRenderings(join(outDir, entry.name));
    const newestFolder = renderings.at(-1);
    const newest = newestFolder && (await readRenderingRecord(join(outDir, entry.name, newestFolder)));
    if (newest) reports.push({ name: entry.name, newest, renderings });
  }
  const rows = reports.map(({ name, newest, renderings }) => {
    const params = Object.entries(newest.params).map(([key, value]) => `${escapeHtml(key)} ${escapeHtml(value ?? '—')}`).join(', ');
    const data = newest.sources.length === 0
      ? 'no data loaded'
      : newest.sources.map((s) => `${escapeHtml(s.source)} ${s.newestExtractedAt ? escapeHtml(formatter.instant(new Date(s.newestExtractedAt))) : '—'}${s.runId ? ` (run ${escapeHtml(s.runId)})` : ''}`).join('<br>');
    const earlier = renderings.slice(0, -1).reverse().slice(0, 5)
      .map((folder) => `<a href="${encodeURIComponent(name)}/${folder}/index.html">${escapeHtml(folder)}</a>`).join(' ');
    return `<tr>
<td><a href="${encodeURIComponent(name)}/${LATEST}/index.html">${escapeHtml(newest.title)}</a><br><span class="meta">${escapeHtml(name)}</span></td>
<td>${escapeHtml(formatter.instant(new Date(newest.renderedAt)))}</td>
<td>${params || '—'}</td>
<td>${data}</td>
<td>${renderings.length}${earlier ? `<br><span class="meta">${earlier}</span>` : ''}</td>
</tr>`;
  });
  const html = `<!doctype html>
<html lang="${escapeHtml(formatter.options.locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>fanlake reports</title>
<style>${PAGE_CSS}</style>
</head>
<body>
<header><h1>Reports</h1><p class="lead">The newest rendering of every report in this folder; earlier renderings kept are linked in the last column.</p></header>
<main>
${reports.length === 0 ? '<p class="notice">No reports rendered yet.</p>' : `<table>
<thead><tr><th scope="col">report</th><th scope="col">rendered</th><th scope="col">parameters</th><th scope="col">from data</th><th scope="col">renderings kept</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>`}
</main>
<footer><p>Index written ${escapeHtml(formatter.instant(now))}.</p></footer>
</body>
</html>
`;
  const path = join(outDir, INDEX_FILE);
  await writeFileAtomic(path, html);
  return path;
}
