import { describe, expect, it } from 'vitest';
import { FIELD_KINDS, type FieldDeclarations, type FieldKind, itemSchema, itemValidator } from '../../src/sources/fields.js';

const SAMPLES: unknown[] = [0, 1, -7, 1.5, Number.NaN, '', 'x', '12', true, false, {}, [], [1], { a: 1 }];

describe('field kinds', () => {
  it('fast checks agree with the zod schemas on every sample', () => {
    for (const kind of Object.keys(FIELD_KINDS) as FieldKind[]) {
      for (const value of SAMPLES) {
        const fast = itemValidator({ v: kind }, [])({ v: value }).ok;
        const zod = itemSchema({ v: kind }, []).safeParse({ v: value }).success;
        expect(fast, `${kind} ${JSON.stringify(value)}`).toBe(zod);
      }
    }
  });

  it('requires the primary key, allows any other field to be null or absent, keeps unknown fields', () => {
    const validate = itemValidator({ id: 'int', name: 'string', price: 'float' }, ['id']);
    expect(validate({ id: 1 })).toEqual({ ok: true });
    expect(validate({ id: 1, name: null, extra: { nested: true } })).toEqual({ ok: true });
    expect(validate({ name: 'x' })).toMatchObject({ ok: false, reason: expect.stringMatching(/^id: /) });
    expect(validate({ id: 1, price: '12.50' })).toMatchObject({ ok: false, reason: expect.stringMatching(/^price: /) });
    expect(validate('not an object')).toMatchObject({ ok: false });
  });

  it('checks fields whatever their names', () => {
    const fields: FieldDeclarations = { 'a "quoted"\\ name': 'int', 'line\nbreak': 'string', '0': 'bool' };
    const validate = itemValidator(fields, ['a "quoted"\\ name']);
    expect(validate({ 'a "quoted"\\ name': 1, 'line\nbreak': 'x', 0: true })).toEqual({ ok: true });
    expect(validate({ 'a "quoted"\\ name': 1, 'line\nbreak': 2 })).toMatchObject({ ok: false, reason: expect.stringMatching(/^line\nbreak: /) });
    expect(validate({ 'a "quoted"\\ name': 1, 0: 'yes' })).toMatchObject({ ok: false, reason: expect.stringMatching(/^0: /) });
    expect(validate({ 'line\nbreak': 'x' })).toMatchObject({ ok: false });
  });
});
