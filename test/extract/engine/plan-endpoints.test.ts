import { describe, expect, it } from 'vitest';
import { planEndpoints } from '../../../src/extract/engine/plan-endpoints.js';
import type { EndpointDeclaration } from '../../../src/sources/endpoint-declaration.js';

interface Settings {
  readonly loyalty: boolean;
  readonly profilesOff?: boolean;
}

const endpoint = (name: string, extra: Partial<EndpointDeclaration<Settings>> = {}): EndpointDeclaration<Settings> => ({
  name, path: `/${name}`, paging: { style: 'none' }, primaryKey: ['id'], fields: { id: 'string' }, notFound: 'empty', ...extra,
});

const ENDPOINTS = [
  endpoint('profiles', {
    linked: [{ member: 'people', name: 'people', primaryKey: ['id'], fields: { id: 'string' } }],
    skip: (settings) => (settings.profilesOff ? 'profiles off' : undefined),
  }),
  endpoint('identities', { fanOut: { parent: 'people', key: 'id' } }),
  endpoint('loyalty', { fanOut: { parent: 'profiles', key: 'id' }, skip: (settings) => (settings.loyalty ? undefined : 'opt-in') }),
  endpoint('apps'),
];

const plan = (settings: Settings, only?: string[]) =>
  planEndpoints(ENDPOINTS, settings, only).map(({ endpoint: planned, skipped }) => (skipped ? `${planned.name} (${skipped})` : planned.name));

describe('planEndpoints', () => {
  it('runs every endpoint that is not left off, and names the ones left off', () => {
    expect(plan({ loyalty: false })).toEqual(['profiles', 'identities', 'loyalty (opt-in)', 'apps']);
    expect(plan({ loyalty: true })).toEqual(['profiles', 'identities', 'loyalty', 'apps']);
  });

  it('runs the parent of an asked-for fan-out, through a linked table, and nothing else', () => {
    expect(plan({ loyalty: false }, ['identities'])).toEqual(['profiles', 'identities']);
    expect(plan({ loyalty: false }, ['people'])).toEqual(['profiles']);
    // Left off and not asked for: not even reported.
    expect(plan({ loyalty: false }, ['apps'])).toEqual(['apps']);
  });

  it('does not read a parent for a fan-out that is left off', () => {
    expect(plan({ loyalty: false }, ['loyalty'])).toEqual(['loyalty (opt-in)']);
  });

  it('skips a fan-out whose parent is left off instead of waiting for it', () => {
    expect(plan({ loyalty: true, profilesOff: true }, ['identities', 'profiles'])).toEqual([
      'profiles (profiles off)',
      'identities (its parent people is left off: profiles off)',
    ]);
  });

  it('refuses a fan-out over a table no earlier endpoint writes', () => {
    expect(() => planEndpoints([endpoint('orphan', { fanOut: { parent: 'nothing', key: 'id' } })], { loyalty: false })).toThrow(/orphan fans out over nothing/);
  });
});
