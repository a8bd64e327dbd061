import { appendFile, open } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalEnd, journalSize, markConsumed, readChangesSince } from '../../src/listen/journal.js';
import { type JournalFile, JournalWriter, type JournalWriterOptions } from '../../src/listen/journal-writer.js';
import { tempDataDir } from '../helpers/cli.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
/** A clock that moves a millisecond each time it is read. */
function steppingClock(): () => Date {
  let ms = T0;
  return () => new Date(ms++);
}
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
/** One line of about a hundred bytes. */
const entry = (k: number) => ({ at: at(k), ids: [String(1_000_000 + k).padEnd(80, '0')] });

function segmentFiles(dataDir: string): string[] {
  return readdirSync(join(dataDir, 'listen', 'journal')).sort();
}

const diskFull = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

/**
 * Segment files on a disk that fills up on command: the write in progress then puts only its
 * first bytes on disk and fails, as a real one may; `truncateFails` breaks the repair too.
 */
function fillingDisk() {
  const disk = { full: false, truncateFails: false, opened: 0 };
  const openFile = async (path: string): Promise<JournalFile> => {
    disk.opened++;
    const handle = await open(path, 'ax');
    return {
      append: async (text) => {
        if (!disk.full) return handle.appendFile(text);
        await handle.appendFile(text.slice(0, Math.ceil(text.length / 2)));
        throw diskFull();
      },
      sync: () => handle.datasync(),
      truncate: async (length) => {
        if (disk.truncateFails) throw diskFull();
        await handle.truncate(length);
      },
      close: () => handle.close(),
    };
  };
  return { disk, openFile };
}

async function writer(dataDir: string, options: Partial<JournalWriterOptions> = {}): Promise<JournalWriter> {
  return JournalWriter.open(dataDir, { segmentBytes: 1_000, maxBytes: 100_000, now: steppingClock(), ...options });
}

describe('JournalWriter', () => {
  it('after a failed append cuts the partial bytes off, so the next batch is not glued onto them', async () => {
    const dataDir = tempDataDir();
    const { disk, openFile } = fillingDisk();
    const journal = await writer(dataDir, { openFile });
    await journal.append(entry(0));
    disk.full = true;
    await expect(journal.append(entry(1))).rejects.toThrow(/ENOSPC/);
    disk.full = false;
    await journal.append(entry(2));
    await journal.close();
    expect(segmentFiles(dataDir)).toHaveLength(1);
    expect(await readChangesSince(dataDir, undefined)).toMatchObject({ ids: [entry(0).ids[0], entry(2).ids[0]], unreadable: 0 });
  });

  it('goes on in a new segment when the partial bytes cannot be cut off, leaving them unterminated where readers ignore them', async () => {
    const dataDir = tempDataDir();
    const { disk, openFile } = fillingDisk();
    const journal = await writer(dataDir, { openFile });
    await journal.append(entry(0));
    Object.assign(disk, { full: true, truncateFails: true });
    await expect(journal.append(entry(1))).rejects.toThrow(/ENOSPC/);
    Object.assign(disk, { full: false, truncateFails: false });
    await journal.append(entry(2));
    await journal.close();
    const files = segmentFiles(dataDir);
    expect(files).toHaveLength(2);
    expect(readFileSync(join(dataDir, 'listen', 'journal', files[0]!), 'utf8').endsWith('\n')).toBe(false);
    expect(await readChangesSince(dataDir, undefined)).toMatchObject({ ids: [entry(0).ids[0], entry(2).ids[0]], unreadable: 0 });
  });

  it('rotates the live segment at its size limit', async () => {
    const dataDir = tempDataDir();
    const journal = await writer(dataDir);
    const first = journal.segment;
    for (let k = 0; k < 25; k++) await journal.append(entry(k));
    await journal.close();
    const files = segmentFiles(dataDir);
    // Lines of 125 bytes: a segment is full after its eighth, so 25 make four segments.
    expect(JSON.stringify(entry(0)).length + 1).toBe(125);
    expect(files.length).toBe(4);
    expect(files.at(-1)).toBe(`${journal.segment}.ndjson`);
    expect(files[0]).toBe(`${first}.ndjson`);
    for (const file of files.slice(0, -1)) expect(readFileSync(join(dataDir, 'listen', 'journal', file)).length).toBe(1_000);
    expect((await readChangesSince(dataDir, undefined)).ids).toHaveLength(25);
  });

  it('keeps the journal within its bound: consumed segments go quietly, unconsumed ones only after a dropped entry the next read sees', async () => {
    const dataDir = tempDataDir();
    const { disk, openFile } = fillingDisk();
    const journal = await writer(dataDir, { maxBytes: 3_000, openFile });
    for (let k = 0; k < 20; k++) await journal.append(entry(k));
    // Consumed to the end of the second segment (markConsumed removes the first): it goes without a word.
    const [, second] = segmentFiles(dataDir).map((file) => file.replace('.ndjson', ''));
    await markConsumed(dataDir, { segment: second!, offset: 1_000 }, journal.segment);
    expect(segmentFiles(dataDir)).toHaveLength(2);
    for (let k = 20; k < 60; k++) await journal.append(entry(k));
    await journal.close();
    expect((await journalSize(dataDir)).bytes).toBeLessThanOrEqual(3_000);
    const read = await readChangesSince(dataDir, undefined);
    const gone = disk.opened - segmentFiles(dataDir).length;
    // Every unconsumed segment that went is told of, also those whose dropped entry went with a later drop.
    expect(gone).toBeGreaterThan(4);
    expect(read.dropped.reduce((sum, drop) => sum + drop.segments, 0)).toBe(gone - 2);
    expect(read.ids).toContain(entry(59).ids[0]);
    expect(read.through).toEqual(await journalEnd(dataDir));
  });

  it('drops nothing and appends no dropped entry while the journal is within its bound', async () => {
    const dataDir = tempDataDir();
    const journal = await writer(dataDir, { maxBytes: 100_000 });
    for (let k = 0; k < 30; k++) await journal.append(entry(k));
    await journal.close();
    expect(await readChangesSince(dataDir, undefined)).toMatchObject({ dropped: [], entries: 30 });
  });

  it('resolves an append only once its line is on disk, and fails appends after close', async () => {
    const dataDir = tempDataDir();
    const journal = await writer(dataDir);
    const pending = [0, 1, 2].map((k) => journal.append(entry(k)));
    await journal.close();
    await Promise.all(pending);
    expect((await readChangesSince(dataDir, undefined)).entries).toBe(3);
    await expect(journal.append(entry(3))).rejects.toThrow(/closed/);
    // A line appended by hand after close is read like any other.
    await appendFile(join(dataDir, 'listen', 'journal', `${journal.segment}.ndjson`), `${JSON.stringify(entry(4))}\n`);
    expect((await readChangesSince(dataDir, undefined)).entries).toBe(4);
  });
});
