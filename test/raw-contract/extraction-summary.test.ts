import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractionSummaryPath, listExtractionSummaries, readExtractionSummary, writeExtractionSummary } from '../../src/raw-contract/index.js';
import type { ExtractionSummary } from '../../src/raw-contract/index.js';

let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fanlake-summary-'));
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function summary(runId = '20240501T100000Z-abc123'): ExtractionSummary {
  return {
    runId,
    startedAt: '2024-05-01T10:00:00.000Z',
    finishedAt: '2024-05-01T10:05:00.000Z',
    results: [],
    skippedSources: [{ source: 'engagement', reason: 'FANLAKE_ENGAGEMENT_URL is not set' }],
  };
}

// One resource's result as a file holds it; untyped so a test can spoil any field.
const RESULT = { source: 'ticketing', resource: 'tickets', status: 'partial', rows: 3, files: 1, quarantined: 1, requests: 4, retries: 2, seconds: 0.5, messages: [] };

describe('extraction run summary', () => {
  it('is written under runs/<run id>.json as given and read back validated', async () => {
    const written = summary();
    const path = await writeExtractionSummary(dataDir, written);
    expect(path).toBe(join(dataDir, 'runs', `${written.runId}.json`));
    // The file format is what earlier versions wrote: the object as given, two-space JSON, a final newline.
    expect(await readFile(path, 'utf8')).toBe(`${JSON.stringify(written, null, 2)}\n`);
    expect(await readExtractionSummary(path)).toEqual(written);

    await writeFile(path, JSON.stringify({ ...written, results: [RESULT] }));
    expect(await readExtractionSummary(path)).toMatchObject({ results: [{ source: 'ticketing', resource: 'tickets', status: 'partial', rows: 3, files: 1 }] });
  });

  it('refuses to write a summary that does not match its schema', async () => {
    const bad = { ...summary(), results: [{ ...RESULT, status: 'done' }] } as unknown as ExtractionSummary;
    await expect(writeExtractionSummary(dataDir, bad)).rejects.toMatchObject({ code: 'E_RUN_SUMMARY_INVALID' });
    await expect(listExtractionSummaries(dataDir)).resolves.toEqual([]);
  });

  it('names the file and the field when a summary on disk is malformed', async () => {
    const path = extractionSummaryPath(dataDir, '20240501T100000Z-abc123');
    await mkdir(join(dataDir, 'runs'));
    await writeFile(path, '{"runId": "20240501T100000Z-abc123"');
    const notJson = readExtractionSummary(path);
    await expect(notJson).rejects.toMatchObject({ code: 'E_RUN_SUMMARY_INVALID', context: { path } });
    await expect(notJson).rejects.toThrow(`run summary ${path} is not JSON`);

    await writeFile(path, JSON.stringify({ ...summary(), results: [{ ...RESULT, rows: 'three' }] }));
    const wrongType = readExtractionSummary(path);
    await expect(wrongType).rejects.toMatchObject({ code: 'E_RUN_SUMMARY_INVALID', context: { path } });
    await expect(wrongType).rejects.toThrow(/results\[0\]\.rows/);
  });

  it('lists summaries oldest run first, and none before the first extraction', async () => {
    await expect(listExtractionSummaries(dataDir)).resolves.toEqual([]);
    await writeExtractionSummary(dataDir, summary('20240502T100000Z-000000'));
    await writeExtractionSummary(dataDir, summary('20240501T100000Z-ffffff'));
    const listed = await listExtractionSummaries(dataDir);
    expect(listed.map((file) => file.runId)).toEqual(['20240501T100000Z-ffffff', '20240502T100000Z-000000']);
    expect(listed[0]!.path).toBe(extractionSummaryPath(dataDir, '20240501T100000Z-ffffff'));
  });
});
