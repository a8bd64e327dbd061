import { describe, expect, it } from 'vitest';
import { rawArrayItems } from '../../../src/extract/spool/raw-items.js';

const texts = (items: Buffer[] | undefined) => items?.map((item) => item.toString('utf8'));

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

  it('gives up (the caller serializes) on a missing key, a key given twice, a count that differs or a broken body', () => {
    // JSON.parse keeps the second array: the first one's bytes are not the items validated
    expect(rawArrayItems(Buffer.from('{"items":[{"a":1}],"items":[{"a":2}]}'), 'items', 1)).toBeUndefined();
    expect(rawArrayItems(Buffer.from('{"rows":[{"a":1}]}'), 'items', 1)).toBeUndefined();
    expect(rawArrayItems(Buffer.from('{"items":[{"a":1},{"a":2}]}'), 'items', 1)).toBeUndefined();
    expect(rawArrayItems(Buffer.from('{"items":[{"a":1},{"a":2}]}'), 'items', 3)).toBeUndefined();
    expect(rawArrayItems(Buffer.from('{"items":[{"a":"1}]}'), 'items', 1)).toBeUndefined();
    expect(rawArrayItems(Buffer.from('{"items":{"a":1}}'), 'items', 1)).toBeUndefined();
  });
});

