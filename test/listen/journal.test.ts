import { appendFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalEnd, journalSize, markConsumed, readChangesSince, readConsumed, readConsumedMark } from '../../src/listen/journal.js';
import { JournalWriter } from '../../src/listen/journal-writer.js';
import { tempDataDir } from '../helpers/cli.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
/** An ISO time `seconds` after T0. */
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

function segmentFiles(dataDir: string): string[] {
  return readdirSync(join(dataDir, 'listen', 'journal')).sort();
}

describe('the change journal', () => {
  it('reads what was appended after a position, each id once, and counts unreadable deliveries', async () => {
    const dataDir = tempDataDir();
    const writer = await JournalWriter.open(dataDir);
    await Promise.all([writer.append({ at: at(0), ids: ['1', '2'] }), writer.append({ at: at(1), ids: ['2', '3'] })]);
    const first = await readChangesSince(dataDir, undefined);
    expect(first).toMatchObject({ ids: ['1', '2', '3'], unparsed: 0, unreadable: 0, entries: 2, waiting: 0 });
    await writer.append({ at: at(2), unparsed: true });
    await writer.append({ at: at(3), ids: ['4'] });
    const next = await readChangesSince(dataDir, first.through);
    expect(next).toMatchObject({ ids: ['4'], unparsed: 1, entries: 2 });
    expect(next.through).toEqual(await journalEnd(dataDir));
    expect(await readChangesSince(dataDir, next.through)).toMatchObject({ ids: [], entries: 0, through: next.through });
    await writer.close();
  });

  it('ignores a line a killed receiver left without its newline, and reads the next receiver\'s segment', async () => {
    const dataDir = tempDataDir();
    const writer = await JournalWriter.open(dataDir);
    await writer.append({ at: at(0), ids: ['1'] });
    await writer.close();
    const [segment] = segmentFiles(dataDir);
    appendFileSync(join(dataDir, 'listen', 'journal', segment!), `{"at":"${at(1)}","ids":["2"`);
    const next = await JournalWriter.open(dataDir);
    await next.append({ at: at(2), ids: ['3'] });
    expect(await readChangesSince(dataDir, undefined)).toMatchObject({ ids: ['1', '3'], unreadable: 0 });
    await next.close();
  });

  it('skips and counts every line that is no entry, partial bytes glued to a complete entry among them, and reads on', async () => {
    const dataDir = tempDataDir();
    const writer = await JournalWriter.open(dataDir);
    await writer.append({ at: at(0), ids: ['1'] });
    await writer.close();
    const path = join(dataDir, 'listen', 'journal', segmentFiles(dataDir)[0]!);
    appendFileSync(path, `{"at":"${at(1)}","ids":["2"{"at":"${at(2)}","ids":["3"]}\n`);
    appendFileSync(path, '\u0000\u0000garbage\n[1,2]\n{"at":"yesterday","ids":["9"]}\n{"at":"2026-03-01T12:00:03.000Z"}\n');
    appendFileSync(path, `${JSON.stringify({ at: at(4), ids: ['4'] })}\n`);
    const read = await readChangesSince(dataDir, undefined);
    expect(read).toMatchObject({ ids: ['1', '4'], unreadable: 5, entries: 2 });
    expect(read.through).toEqual(await journalEnd(dataDir));
  });

  it('takes only settled entries, and stops before the first younger one, which the next read takes', async () => {
    const dataDir = tempDataDir();
    const writer = await JournalWriter.open(dataDir);
    for (const [second, id] of [[0, '1'], [10, '2'], [40, '3'], [20, '4']] as const) await writer.append({ at: at(second), ids: [id] });
    await writer.close();
    // Settled by T0 + 30 s: the first two; the one at 40 s stops the read, so the one at 20 s after it waits too.
    const early = await readChangesSince(dataDir, undefined, { settledBefore: new Date(T0 + 30_000) });
    expect(early).toMatchObject({ ids: ['1', '2'], entries: 2, waiting: 2 });
    const later = await readChangesSince(dataDir, early.through, { settledBefore: new Date(T0 + 60_000) });
    expect(later).toMatchObject({ ids: ['3', '4'], entries: 2, waiting: 0 });
    expect(later.through).toEqual(await journalEnd(dataDir));
  });

  it('takes an unreadable line with the settled entry after it, and at a segment\'s end only once the segment was last written before the settling time', async () => {
    const dataDir = tempDataDir();
    const writer = await JournalWriter.open(dataDir);
    await writer.append({ at: at(0), ids: ['1'] });
    await writer.close();
    const path = join(dataDir, 'listen', 'journal', segmentFiles(dataDir)[0]!);
    appendFileSync(path, 'garbage\n');
    utimesSync(path, new Date(T0 + 50_000), new Date(T0 + 50_000));
    const young = await readChangesSince(dataDir, undefined, { settledBefore: new Date(T0 + 30_000) });
    expect(young).toMatchObject({ ids: ['1'], unreadable: 0, waiting: 1 });
    const settled = await readChangesSince(dataDir, undefined, { settledBefore: new Date(T0 + 60_000) });
    expect(settled).toMatchObject({ ids: ['1'], unreadable: 1, waiting: 0 });
    expect(settled.through).toEqual(await journalEnd(dataDir));

    appendFileSync(path, `${JSON.stringify({ at: at(20), ids: ['2'] })}\n`);
    expect(await readChangesSince(dataDir, undefined, { settledBefore: new Date(T0 + 30_000) })).toMatchObject({ ids: ['1', '2'], unreadable: 1, waiting: 0 });
  });

  it('marks a position consumed, only forward, and drops segments wholly before it', async () => {
    const dataDir = tempDataDir();
    const old = await JournalWriter.open(dataDir);
    await old.append({ at: at(0), ids: ['1'] });
    await old.close();
    const current = await JournalWriter.open(dataDir);
    await current.append({ at: at(1), ids: ['2'] });
    const end = (await journalEnd(dataDir))!;
    await markConsumed(dataDir, end, current.segment);
    expect(await readConsumed(dataDir)).toEqual(end);
    expect(segmentFiles(dataDir)).toEqual([`${current.segment}.ndjson`]);
    await markConsumed(dataDir, { segment: end.segment, offset: 0 });
    expect(await readConsumed(dataDir)).toEqual(end);
    expect((await readChangesSince(dataDir, await readConsumed(dataDir))).ids).toEqual([]);
    expect(await journalSize(dataDir)).toEqual({ segments: 1, bytes: end.offset });
    await current.close();
  });

  it('says a damaged consumed mark is damaged instead of failing, and writes it anew', async () => {
    const dataDir = tempDataDir();
    const writer = await JournalWriter.open(dataDir);
    await writer.append({ at: at(0), ids: ['1'] });
    await writer.close();
    writeFileSync(join(dataDir, 'listen', 'consumed.json'), '{"version":1,"posi');
    expect(await readConsumedMark(dataDir)).toEqual({ position: undefined, damaged: true });
    const end = (await journalEnd(dataDir))!;
    await markConsumed(dataDir, end);
    expect(await readConsumedMark(dataDir)).toEqual({ position: end, damaged: false });
  });
});
