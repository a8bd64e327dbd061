import { describe, expect, it } from 'vitest';
import type { IdentityModelConfig } from '../../src/models/identity-model/config.js';
import type { ComparisonName } from '../../src/models/identity-model/config.js';
import { expectationMaximisation, flooredShares, type UEstimate } from '../../src/models/identity-model/train.js';
import type { StoredLevel, StoredModel } from '../../src/models/identity-model/store.js';
import { trainingGaps } from '../../src/models/identity-model/training-gaps.js';

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
    ['first_name', { u: u.first_name, pairs: [0, 0], total: 0, trained: true }],
    ['birth_date', { u: u.birth_date, pairs: [0, 0], total: 0, trained: true }],
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

describe('flooredShares', () => {
  it('floors the counts before normalising, so the shares add up to 1', () => {
    const shares = flooredShares([0, 10, 90], 0.5);
    expect(shares.reduce((sum, share) => sum + share, 0)).toBeCloseTo(1, 12);
    expect(shares[0]).toBeCloseTo(0.5 / 100.5, 12);
  });

  it('shares out the sum it is given', () => {
    expect(flooredShares([1, 3], 0.5, 0.4)).toEqual([0.1, 0.30000000000000004]);
  });
});

describe('expectationMaximisation on a small session', () => {
  it('gives every comparison m adding up to 1, a level no match showed floored', () => {
    const few = [{ levels: [1], pairs: 3 }, { levels: [2], pairs: 1 }];
    const config = { training: { em_max_iterations: 200, em_tolerance: 1e-9, m_floor_matches: 0.5 } } as unknown as IdentityModelConfig;
    const u = new Map<ComparisonName, UEstimate>([['first_name', { u: [0.01, 0.2, 0.79], pairs: [0, 0, 0], total: 0, trained: true }]]);
    const session = expectationMaximisation(few, [{ name: 'first_name', levels: ['exact', 'alike', 'different'] }], u, config, ['first_name']);
    const m = session.m.get('first_name')!;
    expect(m.reduce((sum, value) => sum + value, 0)).toBeCloseTo(1, 12);
    expect(m[2]).toBeGreaterThan(0);
  });
});

describe('trainingGaps', () => {
  const level = (comparison: string, levelIndex: number, fields: Partial<StoredLevel>): StoredLevel => ({ comparison, levelIndex, level: `l${levelIndex}`, m: 0.5, u: 0.5, uPairs: 10, mSessions: 2, ...fields });
  it('names a comparison without m or u evidence and a session that did not converge', () => {
    const model = {
      sessions: [{ rule: 'email', converged: true, iterations: 5 }, { rule: 'phone', converged: false, iterations: 40 }],
      levels: [
        level('email', 0, { uPairs: 0, mSessions: 0 }), level('email', 1, {}), level('email', 2, {}),
        level('address', 1, { uPairs: 0 }), level('address', 2, { uPairs: 0 }),
        level('phone', 1, { mSessions: 0 }), level('phone', 2, { mSessions: 0 }),
      ],
    } as unknown as StoredModel;
    expect(trainingGaps(model)).toEqual([
      'address: u not trained (no random pair had a value on both sides): it weighs nothing',
      'phone: m not trained (no converged EM session compared it): its levels keep their starting m',
      'EM session of blocking rule phone did not converge in 40 iterations: not used',
    ]);
  });
});
