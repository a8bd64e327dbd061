import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ClubDiagnosis, type CodeFinding, writeSuggestions } from '../../../src/models/club/club-doctor.js';
import { readClubFiles } from '../../../src/models/club/club-files.js';

/**
 * `doctor --write` (writeSuggestions) against real club folders: whatever code names the APIs
 * send, the files it writes read back with those names exactly, and a file a spreadsheet saved
 * keeps its separator and line ends.
 */
function diagnosis(findings: Omit<CodeFinding, 'records' | 'state'>[]): ClubDiagnosis {
  return { findings: findings.map((finding) => ({ ...finding, records: 1, state: 'unmapped' })), files: [], open: [] };
}

function newClubDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'fanlake-doctor-write-')), 'club');
}

/** Names and texts an API can send: any unicode, with what CSV and a hand-edited file treat specially. */
const apiText = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.array(fc.oneof(fc.constantFrom('"', ',', ';', '\n', '\r\n', ' ', '#', '\uFEFF', 'æøå'), fc.string({ maxLength: 3 })), { maxLength: 10 }).map((parts) => parts.join('')),
);

describe('writeSuggestions', () => {
  it('writes every name an API can send so that the club files read it back exactly', async () => {
    await fc.assert(
      fc.asyncProperty(apiText, apiText, apiText, async (consent, status, channel) => {
        const clubDir = newClubDir();
        await writeSuggestions(clubDir, diagnosis([
          { mapping: 'consent', source: 'engagement', codeId: 901, codeName: consent, file: 'consent_meanings' },
          { mapping: 'order_status', source: 'tickets', codeId: 901, codeName: status, file: 'order_status_groups' },
          { mapping: 'sales_channel', source: 'merchandise', codeId: null, codeName: channel, file: 'sales_channels' },
        ]));
        const files = new Map((await readClubFiles(clubDir)).map((file) => [file.name, file.rows.filter((row) => !row.confirmed)]));
        expect(new Set(files.get('consent_meanings')!.map((row) => row.consent_name))).toEqual(new Set([consent]));
        expect(files.get('order_status_groups')!.map((row) => row.order_status_name)).toEqual([status]);
        expect(files.get('sales_channels')!.map((row) => row.channel)).toEqual([channel]);
      }),
      { numRuns: 60 },
    );
  });

  it('adds to a file a spreadsheet saved in its own separator and line ends, the club\'s rows untouched', async () => {
    const clubDir = newClubDir();
    mkdirSync(clubDir);
    const path = join(clubDir, 'order_status_groups.csv');
    const before = '\uFEFF# our statuses\r\norder_status_id;order_status_name;status_group\r\n1;Fullført, betalt;paid\r\n';
    writeFileSync(path, before);
    await writeSuggestions(clubDir, diagnosis([{ mapping: 'order_status', source: 'tickets', codeId: 4, codeName: 'Venter; "betaling"\r\n', file: 'order_status_groups' }]));
    const after = readFileSync(path, 'utf8');
    expect(after).toBe('\uFEFF# our statuses\r\norder_status_id;order_status_name;status_group;confirmed\r\n1;Fullført, betalt;paid\r\n4;"Venter; ""betaling""\r\n";pending;no\r\n');
    const rows = (await readClubFiles(clubDir)).find((file) => file.name === 'order_status_groups')!.rows;
    expect(rows.map((row) => [row.line, row.order_status_id, row.order_status_name, row.confirmed])).toEqual([
      [3, 1, 'Fullført, betalt', true],
      [4, 4, 'Venter; "betaling"\r\n', false],
    ]);
  });
});
