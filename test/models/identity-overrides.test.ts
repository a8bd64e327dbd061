import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withConnection } from '../../src/core/duckdb.js';
import { UsageError } from '../../src/core/errors.js';
import { identityOverridesMacro, parseIdentityOverrides, readIdentityOverrides } from '../../src/models/identity-overrides.js';

const problemOf = (text: string) => {
  try {
    parseIdentityOverrides(text, 'overrides.csv');
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('parsed without a problem');
};

describe('parseIdentityOverrides', () => {
  it('reads pairs in key order with their lines, skipping comments and blank lines, quotes allowed', () => {
    const text = '# desk decisions\nrecord_a,record_b,decision,note\n\nticketing_user:9,engagement_person:12,same,"Kari, after a call"\nticketing_member:3,ticketing_user:4,different,\n';
    expect(parseIdentityOverrides(text, 'f.csv')).toEqual([
      { record_a: 'engagement_person:12', record_b: 'ticketing_user:9', decision: 'same', note: 'Kari, after a call', line: 4 },
      { record_a: 'ticketing_member:3', record_b: 'ticketing_user:4', decision: 'different', note: '', line: 5 },
    ]);
    expect(parseIdentityOverrides('record_a,record_b,decision\r\nticketing_user:1,ticketing_user:2,same\r\n', 'f.csv')).toHaveLength(1);
  });

  it.each([
    ['a,b,c\n', 'overrides.csv:1: the header must be record_a,record_b,decision'],
    ['record_a,record_b,decision\nuser:1,ticketing_user:2,same\n', 'overrides.csv:2: record_a must be a record key'],
    ['record_a,record_b,decision\nticketing_user:1,ticketing_user:2,maybe\n', 'overrides.csv:2: decision must be same or different'],
    ['record_a,record_b,decision\nticketing_user:1,ticketing_user:2\n', 'overrides.csv:2: 2 field(s), the header has 3'],
    ['record_a,record_b,decision\nticketing_user:1,ticketing_user:1,same\n', 'overrides.csv:2: ticketing_user:1 is paired with itself'],
    ['record_a,record_b,decision,note\nticketing_user:1,ticketing_user:2,same,"open\n', 'overrides.csv:2: a quoted field is not closed'],
    [
      'record_a,record_b,decision\nticketing_user:1,ticketing_user:2,same\n# later\nticketing_user:2,ticketing_user:1,different\n',
      'overrides.csv:4: ticketing_user:1 and ticketing_user:2 are already settled on line 2',
    ],
  ])('names the line of a problem: %j', (text, problem) => {
    expect(problemOf(text)).toContain(problem);
  });
});

describe('readIdentityOverrides', () => {
  it('takes a missing file at the default path as no decisions, and refuses one the settings named', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'fanlake-overrides-')), 'identity_overrides.csv');
    expect(await readIdentityOverrides(missing, false)).toEqual([]);
    await expect(readIdentityOverrides(missing, true)).rejects.toThrow(`identity overrides file ${missing} cannot be read`);
  });
});

describe('identityOverridesMacro', () => {
  it('serves the decisions, quotes and all, as macros.identity_overrides(), and an empty table without any', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'fanlake-overrides-'));
    const file = join(folder, 'o.csv');
    writeFileSync(file, "record_a,record_b,decision,note\nticketing_user:1,ticketing_user:2,same,it's her\n");
    const overrides = await readIdentityOverrides(file, true);
    await withConnection(join(folder, 'w.duckdb'), async (connection) => {
      await connection.run('create schema macros');
      await connection.run(identityOverridesMacro(overrides, file).sql);
      const rows = (await connection.runAndReadAll('select * from macros.identity_overrides()')).getRowObjectsJson();
      expect(rows).toEqual([{ record_key_a: 'ticketing_user:1', record_key_b: 'ticketing_user:2', decision: 'same', note: "it's her", line_number: 2 }]);
      await connection.run(identityOverridesMacro([], file).sql);
      const empty = await connection.runAndReadAll('select * from macros.identity_overrides()');
      expect(empty.getRowObjectsJson()).toEqual([]);
      expect(empty.columnNames()).toEqual(['record_key_a', 'record_key_b', 'decision', 'note', 'line_number']);
    });
  });
});
