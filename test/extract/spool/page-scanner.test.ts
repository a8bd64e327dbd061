import { describe, expect, it } from 'vitest';
import { PageScanner, type ScannedPage } from '../../../src/extract/spool/page-scanner.js';
import { type FieldDeclarations, itemValidator } from '../../../src/sources/fields.js';

const FIELDS: FieldDeclarations = { id: 'int', last_update: 'string', name: 'string', price: 'float', paid: 'bool', ref: 'id', flag: 'text', conf: 'json' };
const options = { fields: FIELDS, requiredKey: ['id'], cursorField: 'last_update' };
const validate = itemValidator(FIELDS, ['id']);

const page = (items: string[], envelope = (inner: string) => `{"count":"${items.length}","page":"1","items":[${inner}]}`) => Buffer.from(envelope(items.join(',')));
const scan = (body: Buffer, scanner = new PageScanner(options)) => scanner.scan(body);
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

/** What the scan must agree with: JSON.parse of the body, and the validator on each item. */
function agrees(body: Buffer, scanned: ScannedPage): void {
  const parsed = JSON.parse(body.toString('utf8')) as { count: string | number; items: unknown[] };
  expect(scanned.count).toBe(Number(parsed.count));
  expect(scanned.size).toBe(parsed.items.length);
  const newest: string[] = [];
  parsed.items.forEach((item, k) => {
    expect(scanned.parse(k)).toEqual(item);
    const sure = !scanned.unsure.includes(k);
    // The scan may doubt a valid item, never vouch for an invalid one.
    if (sure) expect(validate(item), JSON.stringify(item)).toEqual({ ok: true });
    const cursor = (item as Record<string, unknown> | null)?.last_update;
    if (sure && typeof cursor === 'string') newest.push(cursor);
  });
  expect(scanned.newest).toBe(newest.sort().at(-1));
  // Last: the lines are made in place, in the body. One item a line, values as parsed.
  const lines = text(scanned.lines());
  expect(lines).not.toMatch(/\r/);
  expect(parsed.items.length === 0 ? [] : lines.split('\n').map((line) => JSON.parse(line) as unknown)).toEqual(parsed.items);
}

describe('PageScanner', () => {
  it('vouches for valid items and finds the page, its count and the newest cursor', () => {
    const items = [
      '{"id":1,"last_update":"2024-01-02","name":"Åse","price":12.5,"paid":true,"ref":"A1","flag":"yes","conf":{"a":[1,{"b":null}]}}',
      '{ "id" : 2 , "last_update" : "2024-03-01", "name" : null, "ref" : 7, "flag" : false, "conf" : [ ] }',
      '{"id":-3,"last_update":"2023-12-31","price":0,"flag":1.25,"conf":"text"}',
    ];
    const body = page(items);
    const scanned = scan(body)!;
    expect(scanned.unsure).toEqual([]);
    expect(scanned.newest).toBe('2024-03-01');
    expect(text(scanned.bytes(1))).toBe(items[1]);
    agrees(body, scanned);
    expect(scan(Buffer.from('{"items":[],"count":0}'))?.size).toBe(0);
  });

  it('leaves each item it cannot vouch for to the validator, and the rest as sure', () => {
    const doubtful = [
      '{"id":"1"}', // wrong type
      '{"id":null}', // required key null
      '{"name":"x"}', // required key absent
      '{"id":1,"extra":5}', // undeclared key
      '{"id":1,"name":"a","name":"b"}', // duplicate key
      '{"id":1e3}', // exponent
      '{"id":1.0}', // a whole number written with a fraction
      '{"id":12345678901234567}', // beyond the surely safe digits
      '{"\\u0069d":1}', // key spelled with escapes
      '{"id":1,"name":{"x":1}}', // nested value in a string field
      '{"id":1,"paid":"true"}', // bool sent as text
      '[1,2]', // not an object
      '"text"',
      '{"id":1,"last_update":"2024-\\u0030"}', // cursor with an escape
      '{"id":1,"last_update":"2024-é"}', // cursor beyond ASCII
    ];
    const body = page(['{"id":0,"last_update":"2020-01-01"}', ...doubtful, '{"id":99}']);
    const scanned = scan(body)!;
    expect(scanned.unsure).toEqual(doubtful.map((_, k) => k + 1));
    agrees(body, scanned);
  });

  it('gives the whole body to JSON.parse when it is not the envelope or not well formed', () => {
    const bodies = [
      '[{"id":1}]',
      '{"count":"1"}',
      '{"items":[{"id":1}]}',
      '{"count":"1","items":[{"id":1}],"count":"2"}',
      '{"\\u0063ount":"1","items":[{"id":1}]}',
      '{"count":"-1","items":[]}',
      '{"count":"1","items":[{"id":1}]',
      '{"count":"1","items":[{"id":1}]} x',
      '{"count":"1","items":[{"id":01}]}',
      '{"count":"1","items":[{"id":1,"paid":tru}]}',
      '{"count":"1","items":[{"id":1,"name":"a\tb"}]}',
      '{\n "count": "1",\n "items": [{"id": 1, "name": "a\nb"}]\n}', // line breaks between tokens and one raw inside a string
      '{"count":"1","items":[{"id":1,"name":"a\\xb"}]}',
      '{"count":"1","items":[{"id":1,"name":"a\\u12G4"}]}',
      '{"count":"1","items":[{"id":1,"name":"abc}]}',
      '{"count":"1","items":[{"id":1,}]}',
      '{"count":"1","items":[{"id":1}],}',
      '\uFEFF{"count":"1","items":[{"id":1}]}',
      `{"count":"1","items":[{"id":1,"conf":${'['.repeat(100)}${']'.repeat(100)}}]}`,
    ];
    for (const body of bodies) expect(scan(Buffer.from(body)), body).toBeUndefined();
  });

  it('reads escapes and line breaks when the body has them', () => {
    const items = ['{"id":1,"name":"a \\"q\\" \\\\ \\n \\u00e9","last_update":"2024-01-01"}', '{\n  "id": 2,\r\n\t"name": "line"\n}'];
    const body = page(items, (inner) => `{\n "count": 2,\n "items": [\n${inner}\n ]\n}\n`);
    const scanned = scan(body)!;
    expect(scanned.unsure).toEqual([]);
    agrees(body, scanned);
    // Line breaks with no escape anywhere: the body is read without looking for escapes.
    const pretty = page(['{\n  "id": 3,\n  "name": "Åse",\n  "last_update": "2024-02-01"\n}'], (inner) => `{\n "count": "1",\n "items": [\n${inner}\n ]\n}\n`);
    expect(scan(pretty)!.unsure).toEqual([]);
    agrees(pretty, scan(pretty)!);
  });

  it('vouches for an undeclared key once it has learned it', () => {
    const scanner = new PageScanner(options);
    const body = page(['{"id":1,"loyalty":{"level":"gold"}}']);
    expect(scan(body, scanner)!.unsure).toEqual([0]);
    scanner.learn('loyalty');
    expect(scan(body, scanner)!.unsure).toEqual([]);
  });

  it('agrees with JSON.parse and the validator on generated and damaged pages', () => {
    let state = 7;
    const random = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
    const values = ['1', '-7', '0', '1.5', '2e3', '12345678901234567890', 'true', 'false', 'null', '"x"', '"é\\n"', '""', '{}', '[1,"a"]', '{"k":[null]}', '"\\u00e9"'];
    const names = Object.keys(FIELDS).concat(['other', 'na\\u006de']);
    const scanner = new PageScanner(options);
    for (let round = 0; round < 400; round++) {
      const items = Array.from({ length: Math.floor(random() * 6) }, () => {
        const members = Array.from({ length: Math.floor(random() * 6) }, () => `"${pick(names)}":${pick(values)}`);
        if (random() < 0.8) members.unshift(`"id":${pick(['1', '2', '"3"', 'null'])}`);
        return random() < 0.05 ? pick(values) : `{${members.join(random() < 0.1 ? ' ,\n ' : ',')}}`;
      });
      let body = page(items);
      if (random() < 0.3) {
        // Damage: cut it short, or change one byte.
        const at = Math.floor(random() * body.length);
        body = random() < 0.5 ? body.subarray(0, at) : Buffer.concat([body.subarray(0, at), Buffer.from([pick([0x22, 0x2c, 0x5d, 0x7d, 0x5c, 0x31, 0x0a, 0x20, 0x3a])]), body.subarray(at + 1)]);
      }
      const scanned = scanner.scan(body);
      if (scanned === undefined) continue;
      // Whatever it reads is valid JSON, and what it vouches for is valid.
      expect(() => JSON.parse(body.toString('utf8')), body.toString('utf8')).not.toThrow();
      agrees(body, scanned);
    }
  });
});
