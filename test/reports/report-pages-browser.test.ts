import { mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import chromium from '@sparticuz/chromium';
import { type Browser, chromium as playwright } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO, runCli } from '../helpers/cli.js';
import { buildReportWarehouse } from './report-fixture.js';
import type { ReportWarehouse } from './report-fixture.js';

/** Git-ignored: a person can look at what the pages looked like in the last test run. */
const SCREENSHOTS = join(REPO, 'test-artifacts', 'report-screenshots');

let fixture: ReportWarehouse;
let browser: Browser;
let out: string;

beforeAll(async () => {
  fixture = await buildReportWarehouse();
  out = mkdtempSync(join(tmpdir(), 'fanlake-report-pages-'));
  const rendered = await runCli(['report', '--out', out, '--param', `season=${fixture.season}`], fixture.env);
  expect(rendered.code, rendered.stderr).toBe(0);
  // A configured Chromium wins; otherwise the one that ships in the @sparticuz/chromium npm package.
  const system = process.env.FANLAKE_TEST_CHROMIUM;
  browser = await playwright.launch({
    executablePath: system || (await chromium.executablePath()),
    args: system ? [] : chromium.args,
    headless: true,
  });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await fixture?.sim.close();
});

it('opens the index and every report page from disk: charts drawn, no console error, no network, no script', async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const names = readdirSync(out, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  expect(names).toEqual(['data-quality', 'match-day']);
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const requests: string[] = [];
  const problems: string[] = [];
  // Anything but the page's own file is a failure, and is never let out.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file://')) return route.continue();
    requests.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', async (dialog) => {
    problems.push(`a script ran: ${dialog.message()}`);
    await dialog.dismiss();
  });

  const indexUrl = pathToFileURL(join(out, 'index.html')).href;
  await page.goto(indexUrl);
  await page.screenshot({ path: join(SCREENSHOTS, 'index.png'), fullPage: true });
  const anchors = await page.locator('a[href$="/latest/index.html"]').all();
  const links = await Promise.all(anchors.map(async (anchor) => new URL((await anchor.getAttribute('href'))!, indexUrl).href));
  expect(links).toHaveLength(names.length);

  for (const link of links) {
    await page.goto(link);
    const name = names.find((candidate) => link.includes(`/${candidate}/`))!;
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
    const charts = page.locator('section.chart figure');
    const count = await charts.count();
    expect(count, name).toBeGreaterThan(0);
    for (let k = 0; k < count; k++) {
      const chart = charts.nth(k);
      expect(await chart.locator('figcaption').innerText()).not.toBe('');
      expect(await chart.locator('[role="img"]').getAttribute('aria-label')).toMatch(/\S+: \S+/);
      const marks = await chart.locator('svg g[class*="mark-"] path, svg g[class*="mark-"] line').count();
      expect(marks, `${name} chart ${k + 1}`).toBeGreaterThan(0);
    }
    expect(await page.locator('script').count()).toBe(0);
    // The hostile away team shows as text on the page.
    if (name === 'match-day') expect(await page.getByText('<script>alert(1)</script>', { exact: false }).count()).toBeGreaterThan(0);
  }
  await context.close();
  expect(problems).toEqual([]);
  expect(requests).toEqual([]);
});
