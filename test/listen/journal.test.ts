import { appendFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JournalWriter, journalEnd, markConsumed, readChangesSince, readConsumed } from '../../src/listen/journal.js';
import { tempDataDir } from '../helpers/cli.js';

describe('the change journal', () => {
  it('reads what was appended after a position, each id once, and counts unreadable deliveries', async () => {
    const dataDir = tempDataDir();
    const writer = await JournalWriter.open(dataDir);
    await Promise.all([writer.append({ at: 'a', ids: ['1', '2'] }), writer.append({ at: 'b', ids: ['2', '3'] })]);
    const first = await readChangesSince(dataDir, undefined);
    expect(first).toMatchObject({ ids: ['1', '2', '3'], unparsed: 0, entries: 2 });
    await writer.append({ at: 'c', unparsed: true });
    await writer.append({ at: 'd', ids: ['4'] });
    const next = await readChangesSince(dataDir, first.through);
    expect(next).toMatchObject({ ids: ['4'], unparsed: 1, entries: 2 });
    expect(next.through).toEqual(await journalEnd(dataDir));
    expect(await readChangesSince(dataDir, next.through)).toMatchObject({ ids: [], entries: 0, through: next.through });
    await writer.close();
  });

  it('ignores a line a killed receiver left without its newline, and reads the next receiver\'s segment', async () => {
    const dataDir = tempDataDir();
    const writer = await JournalWriter.open(dataDir);
    await writer.append({ at: 'a', ids: ['1'] });
    await writer.close();
    const [segment] = readdirSync(join(dataDir, 'listen', 'journal'));
    appendFileSync(join(dataDir, 'listen', 'journal', segment!), '{"at":"b","ids":["2"');
    const next = await JournalWriter.open(dataDir);
    await next.append({ at: 'c', ids: ['3'] });
    expect((await readChangesSince(dataDir, undefined)).ids).toEqual(['1', '3']);
    await next.close();
  });

  it('marks a position consumed, only forward, and drops segments wholly before it', async () => {
    const dataDir = tempDataDir();
    const old = await JournalWriter.open(dataDir);
    await old.append({ at: 'a', ids: ['1'] });
    await old.close();
    const current = await JournalWriter.open(dataDir);
    await current.append({ at: 'b', ids: ['2'] });
    const end = (await journalEnd(dataDir))!;
    await markConsumed(dataDir, end, current.segment);
    expect(await readConsumed(dataDir)).toEqual(end);
    expect(readdirSync(join(dataDir, 'listen', 'journal'))).toEqual([`${current.segment}.ndjson`]);
    await markConsumed(dataDir, { segment: end.segment, offset: 0 });
    expect(await readConsumed(dataDir)).toEqual(end);
    expect((await readChangesSince(dataDir, await readConsumed(dataDir))).ids).toEqual([]);
    await current.close();
  });
});
