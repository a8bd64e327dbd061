import { describe, expect, it } from 'vitest';
import { rawArrayItems, rawItemsOf } from '../../../src/extract/spool/raw-items.js';

const texts = (items: Buffer[] | undefined) => items?.map((item) => item.toString('utf8'));
const text = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8'));

describe('rawArrayItems', () => {
  it('gives each element of the keyed array as the bytes that were sent', () => {
    const items = ['{"id":1,"name":"a \\"quoted\\" } ] , name","nested":{"list":[1,{"x":"]"}]}}', '{ "id" : 2 , "note":"back\\\\"}', '"text"', '12.50', 'null', '[1,[2]]'];
    const body = Buffer.from(`{"count":"6","page":"1","other":{"items":[9]},"items":[${items.join(' , ')}] }`);
    expect(texts(rawArrayItems(body, 'items', 6))).toEqual(items);
    for (const [k, item] of items.entries()) expect(JSON.parse(texts(rawArrayItems(body, 'items', 6))![k]!)).toEqual(JSON.parse(item));
  });

  it('reads a body that is the array itself, an empty one, and line breaks between tokens', () => {
    expect(texts(rawArrayItems(Buffer.from(' [{"a":"é"},{"b":2}]'), undefined, 2))).toEqual(['{"a":"é"}', '{"b":2}']);
    expect(rawArrayItems(Buffer.from('{"count":"0","items":[ ]}'), 'items', 0)).toEqual([]);
    expect(texts(rawArrayItems(Buffer.from('{"items":[\r\n{"a":\n1}]}'), 'items', 1))).toEqual(['{"a":\n1}']);
  });

  it('gives up (the caller serializes) on a missing key, a count that differs or a broken body', () => {
    expect(rawArrayItems(Buffer.from('{"rows":[{"a":1}]}'), 'items', 1)).toBeUndefined();
    expect(rawArrayItems(Buffer.from('{"items":[{"a":1},{"a":2}]}'), 'items', 1)).toBeUndefined();
    expect(rawArrayItems(Buffer.from('{"items":[{"a":1},{"a":2}]}'), 'items', 3)).toBeUndefined();
    expect(rawArrayItems(Buffer.from('{"items":[{"a":"1}]}'), 'items', 1)).toBeUndefined();
    expect(rawArrayItems(Buffer.from('{"items":{"a":1}}'), 'items', 1)).toBeUndefined();
  });
});

describe('rawItemsOf', () => {
  const of = (body: string) => rawItemsOf(Buffer.from(body), 'items', JSON.parse(body));

  it('gives the whole array between its brackets when the key is the last member', () => {
    const body = '{"count":"2","page":"1","items": [ {"id":1,"x":"]"} ,\n{"id":2} ] }\n';
    const raw = of(body);
    expect(text(raw?.all)).toBe(' {"id":1,"x":"]"} ,\n{"id":2} ');
    expect(JSON.parse(`[${text(raw?.all)}]`)).toEqual(JSON.parse(body).items);
    expect(texts(raw?.each())).toEqual(['{"id":1,"x":"]"}', '{"id":2}']);
    expect(text(rawItemsOf(Buffer.from('[{"a":1},{"a":2}] '), undefined, [{ a: 1 }, { a: 2 }])?.all)).toBe('{"a":1},{"a":2}');
    expect(text(of('{"count":"0","items":[ ]}')?.all)).toBe(' ');
  });

  it('gives each item but not the whole array when the key is not provably the last member', () => {
    for (const body of ['{"items":[{"id":1}],"count":"1"}', '{"items":[{"id":1}],"1":[2]}', '{"count":"1","items":[{"id":1}],"page":[3]}']) {
      const raw = of(body);
      expect(raw?.all, body).toBeUndefined();
      expect(texts(raw?.each()), body).toEqual(['{"id":1}']);
    }
  });

  it('gives nothing when there is no such array', () => {
    expect(of('{"rows":[{"a":1}]}')).toBeUndefined();
    expect(of('{"items":{"a":1}}')).toBeUndefined();
    expect(rawItemsOf(Buffer.from('\uFEFF{"items":[{"a":1}]}'), 'items', { items: [{ a: 1 }] })).toBeUndefined();
  });
});
