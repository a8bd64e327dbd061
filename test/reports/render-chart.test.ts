import { describe, expect, it } from 'vitest';
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
