import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { UsageError } from '../../../src/core/errors.js';
import { csvDelimiter, csvField, csvLineEnd, parseCsvTable, stringifyCsvRows } from '../../../src/models/club/csv-table.js';

/**
 * The one CSV reader and writer of the club's files and sql/identity/*.csv (csv-table.ts): what
 * the writer writes the reader reads back exactly, and a person's or a spreadsheet's file reads
 * as they meant it.
 */
const spec = {
  columns: ['id', 'name', 'note'],
  required: 2,
  row: z.object({ id: z.string().regex(/^[0-9]+$/, 'must be a whole number'), name: z.string(), note: z.string().default('') }),
  key: ['id', 'name'] as const,
};

const read = (text: string) => parseCsvTable(text, 'f.csv', spec).map(({ line, id, name, note }) => ({ line, id, name, note }));

const problemOf = (text: string) => {
  try {
    parseCsvTable(text, 'f.csv', spec);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('parsed without a problem');
};

/** Texts an API can send: any unicode, with the characters CSV and this reader treat specially. */
const apiText = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.array(fc.oneof(fc.constantFrom('"', ',', ';', '\n', '\r\n', '\r', ' ', '\t', '#', '""', '\uFEFF', '\u00A0', 'ø'), fc.string({ unit: 'grapheme', maxLength: 4 })), { maxLength: 12 }).map((parts) => parts.join('')),
);

describe('stringifyCsvRows and parseCsvTable', () => {
  it.each([',', ';'] as const)('read back every text the writer wrote, exactly (separator %j)', (delimiter) => {
    fc.assert(
      fc.property(fc.array(fc.tuple(apiText, apiText), { minLength: 1, maxLength: 5 }), fc.constantFrom('\n', '\r\n' as const), (pairs, lineEnd) => {
        const rows = pairs.map(([name, note], at) => [String(at + 1), name, note]);
        const text = stringifyCsvRows([spec.columns, ...rows], delimiter, lineEnd as '\n' | '\r\n');
        expect(csvDelimiter(text, spec)).toBe(delimiter);
        expect(read(text).map(({ id, name, note }) => [id, name, note])).toEqual(rows);
        // and each row is named by the line it starts on
        const linesBefore = (count: number) => stringifyCsvRows([spec.columns, ...rows.slice(0, count)], delimiter, lineEnd as '\n' | '\r\n').split('\n').length;
        expect(read(text).map(({ line }) => line)).toEqual(rows.map((_, at) => linesBefore(at)));
      }),
      { numRuns: 400 },
    );
  });

  it('numbers each row by the line it starts on, past line breaks inside quoted fields', () => {
    const text = stringifyCsvRows([spec.columns, ['1', 'two\nlines', ''], ['2', 'x', 'three\r\nline\nnote'], ['3', 'y', '']]);
    expect(read(text).map(({ line }) => line)).toEqual([2, 4, 7]);
  });

  it('writes a field quoted only when it must be', () => {
    expect(['plain', 'a,b', 'say "hi"', ' lead', 'trail ', '#tag', 'line\nbreak', '', 7, null].map(csvField)).toEqual([
      'plain', '"a,b"', '"say ""hi"""', '" lead"', '"trail "', '"#tag"', '"line\nbreak"', '', '7', '',
    ]);
  });
});

describe('parseCsvTable', () => {
  it('skips a BOM, comments (indented ones too) and blank lines, and reads CRLF files', () => {
    const text = '\uFEFF# club notes\r\nid,name,note\r\n\r\n  # indented\r\n1,Web,\r\n   \r\n2,App,x #not a comment\r\n';
    expect(read(text)).toEqual([
      { line: 5, id: '1', name: 'Web', note: '' },
      { line: 7, id: '2', name: 'App', note: 'x #not a comment' },
    ]);
  });

  it('trims unquoted fields and keeps quoted ones exactly, spaces around the quotes allowed', () => {
    expect(read('id,name,note\n 1 ,  Web shop  , "  kept  " \n2,"a ""b"", c",\n')).toEqual([
      { line: 2, id: '1', name: 'Web shop', note: '  kept  ' },
      { line: 3, id: '2', name: 'a "b", c', note: '' },
    ]);
  });

  it('reads a semicolon file a spreadsheet saved as it reads a comma file', () => {
    const text = 'id;name;note\r\n1;Kampvarsling, SMS;"med ""sitat"";\r\nogså linjeskift "\r\n2;Billettkontor;\r\n';
    expect(csvDelimiter(text, spec)).toBe(';');
    expect(csvLineEnd(text)).toBe('\r\n');
    expect(read(text)).toEqual([
      { line: 2, id: '1', name: 'Kampvarsling, SMS', note: 'med "sitat";\r\nogså linjeskift ' },
      { line: 4, id: '2', name: 'Billettkontor', note: '' },
    ]);
  });

  it('lets a row stop before optional columns, and takes an empty file as an empty table', () => {
    expect(read('id,name\n1,Web\n')).toEqual([{ line: 2, id: '1', name: 'Web', note: '' }]);
    expect(read('')).toEqual([]);
    expect(read('# nothing yet\n\n')).toEqual([]);
  });

  it.each([
    ['id,nam\n', 'f.csv:1: the header must be id,name (then optionally ,note), not id,nam'],
    ['id;name;note;extra\n', 'f.csv:1: the header must be id,name'],
    ['id,name\n1,Web\n\n# c\nx,App\n', 'f.csv:5: id must be a whole number'],
    ['id,name\n1,Web,x,y\n', 'f.csv:2: 4 field(s), the header has 2'],
    ['id,name,note\n1\n', 'f.csv:2: 1 field(s), the header has 3'],
    ['id,name\n1,Web\n# c\n\n1,Web\n', 'f.csv:5: id, name repeat line 2'],
    ['id,name,note\n1,"a\nb",ok\n# c\n2,"open,x\n3,y,z\n', 'f.csv:5: a quoted field is not closed'],
    ['id,name,note\n1,"a"b,c\n', 'f.csv:2: text after the closing quote of a field'],
    ['id,name,note\n1,"two\nlines",\n2,"x"y,\n', 'f.csv:4: text after the closing quote of a field'],
    ['id,name,note\n1,"two\nlines",\n3,"x\n"y,\n', 'f.csv:4: text after the closing quote of a field'],
  ])('names the line a bad record starts on: %j', (text, problem) => {
    expect(problemOf(text)).toContain(problem);
  });
});
