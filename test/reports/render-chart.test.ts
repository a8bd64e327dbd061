import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChartFolder } from '../../src/reports/drawn-charts.js';
import { renderChartSvg } from '../../src/reports/render-chart.js';
import type { ChartBlock } from '../../src/reports/report-definition.js';

describe('renderChartSvg', () => {
  it('writes axis numbers in the report locale, as the tables do', async () => {
    const chart = { type: 'bar', query: 'q', title: 'Revenue', alt: 'Revenue per channel', x: { field: 'channel' }, y: { field: 'revenue' } } as unknown as ChartBlock;
    const rows = [{ channel: 'web', revenue: 250000 }, { channel: 'app', revenue: 125000 }];
    const types = new Map([['channel', 'VARCHAR'], ['revenue', 'BIGINT']]);
    const norwegian = await renderChartSvg(chart, rows, types, { locale: 'nb-NO', currency: 'NOK', timeZone: 'Europe/Oslo' });
    const english = await renderChartSvg(chart, rows, types, { locale: 'en-GB', currency: 'GBP', timeZone: 'Europe/London' });
    expect(norwegian).toMatch(/>250\u00a0000</);
    expect(norwegian).not.toMatch(/>250,000</);
    expect(english).toMatch(/>250,000</);
  });
});

describe('charts drawn before', () => {
  const chart = { type: 'bar', query: 'q', title: 'Revenue', alt: 'Revenue per channel', x: { field: 'channel' }, y: { field: 'revenue' } } as unknown as ChartBlock;
  const types = new Map([['channel', 'VARCHAR'], ['revenue', 'BIGINT']]);
  const locale = { locale: 'nb-NO', currency: 'NOK', timeZone: 'Europe/Oslo' };
  const rows = [{ channel: 'web', revenue: 250000 }, { channel: 'app', revenue: 125000 }];

  it('are taken when drawn from the same rows and locale, and are the SVG a fresh drawing gives', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fanlake-charts-'));
    try {
      const fresh = await renderChartSvg(chart, rows, types, locale);
      const folder = new ChartFolder(dir);
      expect(await renderChartSvg(chart, rows, types, locale, folder)).toBe(fresh);
      // nothing is written before the rendering is published
      expect(readdirSync(dir)).toEqual([]);
      await folder.save();
      const [kept] = readdirSync(dir);
      // what the folder holds is what is shown: a kept chart is not drawn again
      writeFileSync(join(dir, kept!), fresh.replace('250\u00a0000', 'kept'));
      expect(await renderChartSvg(chart, rows, types, locale, new ChartFolder(dir))).toBe(fresh.replace('250\u00a0000', 'kept'));
      // other rows, or another locale, are another chart
      const otherRows = [{ channel: 'web', revenue: 200000 }, rows[1]!];
      const second = new ChartFolder(dir);
      expect(await renderChartSvg(chart, otherRows, types, locale, second)).toBe(await renderChartSvg(chart, otherRows, types, locale));
      const english = await renderChartSvg(chart, rows, types, { locale: 'en-GB', currency: 'GBP', timeZone: 'Europe/London' }, second);
      expect(english).toMatch(/>250,000</);
      await second.save();
      // the chart the second rendering did not use is gone
      expect(readdirSync(dir)).toHaveLength(2);
      expect(readdirSync(dir)).not.toContain(kept);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('are drawn again when the kept file is not a whole SVG, and pruned to those the last rendering used', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fanlake-charts-'));
    try {
      const first = new ChartFolder(dir);
      const fresh = await renderChartSvg(chart, rows, types, locale, first);
      await renderChartSvg(chart, [{ channel: 'web', revenue: 1 }], types, locale, first);
      await first.save();
      const [kept] = readdirSync(dir).filter((name) => readFileSync(join(dir, name), 'utf8') === fresh);
      writeFileSync(join(dir, kept!), fresh.slice(0, 100));
      writeFileSync(join(dir, 'left.svg.123.tmp'), '<svg');
      const second = new ChartFolder(dir);
      expect(await renderChartSvg(chart, rows, types, locale, second)).toBe(fresh);
      await second.save();
      expect(readdirSync(dir)).toEqual([kept]);
      expect(readFileSync(join(dir, kept!), 'utf8')).toBe(fresh);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
