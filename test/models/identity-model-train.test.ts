import { describe, expect, it } from 'vitest';
import type { IdentityModelConfig } from '../../src/models/identity-model/config.js';
import type { ComparisonName } from '../../src/models/identity-model/config.js';
import { expectationMaximisation, type UEstimate } from '../../src/models/identity-model/train.js';

/**
 * EM on level patterns drawn from a known model: a match shows first name level 1 (exact) 90% of
 * the time, a non-match 5%; birth date level 1 95% against 1%. Expected counts, not samples, so
 * EM must recover the m it was given.
 */
describe('expectationMaximisation', () => {
  const m = { first_name: [0.9, 0.1], birth_date: [0.95, 0.05] };
  const u = { first_name: [0.05, 0.95], birth_date: [0.01, 0.99] };
  const matches = 2_000;
  const others = 8_000;
  const patterns = [1, 2].flatMap((first) =>
    [0, 1, 2].map((birth) => {
      // birth date level 0: missing on a side for 10% of the pairs, whatever they are
      const share = (p: { first_name: number[]; birth_date: number[] }) => p.first_name[first - 1]! * (birth === 0 ? 0.1 : 0.9 * p.birth_date[birth - 1]!);
      return { levels: [first, birth], pairs: matches * share(m) + others * share(u) };
    }),
  );
  const config = { training: { em_max_iterations: 200, em_tolerance: 1e-9, m_floor_matches: 0.5 } } as unknown as IdentityModelConfig;
  const uEstimates = new Map<ComparisonName, UEstimate>([
    ['first_name', { u: u.first_name, pairs: [0, 0], total: 0 }],
    ['birth_date', { u: u.birth_date, pairs: [0, 0], total: 0 }],
  ]);

  it('recovers m and the share of matches, a missing value counting for neither', () => {
    const session = expectationMaximisation(
      patterns,
      [{ name: 'first_name', levels: ['exact', 'different'] }, { name: 'birth_date', levels: ['exact', 'different'] }],
      uEstimates,
      config,
      ['first_name', 'birth_date'],
    );
    expect(session.converged).toBe(true);
    expect(session.lambda).toBeCloseTo(0.2, 3);
    expect(session.m.get('first_name')![0]).toBeCloseTo(0.9, 3);
    expect(session.m.get('birth_date')![0]).toBeCloseTo(0.95, 3);
  });

  it('leaves out a comparison held fixed by the training rule', () => {
    const session = expectationMaximisation(patterns, [{ name: 'first_name', levels: ['exact', 'different'] }], uEstimates, config, ['first_name', 'birth_date']);
    expect([...session.m.keys()]).toEqual(['first_name']);
  });
});
