import { describe, expect, it } from 'vitest';
import { scoreIdentityLinks } from '../../bench/identity-score.mjs';

describe('scoreIdentityLinks', () => {
  // person 1: a user, a member and a profile; person 2: a user and a profile
  const truth = [
    { system: 'ticketing_user', recordId: '1', personId: 1 },
    { system: 'ticketing_member', recordId: '1', personId: 1 },
    { system: 'engagement_customer_profile', recordId: '1', personId: 1 },
    { system: 'ticketing_user', recordId: '2', personId: 2 },
    { system: 'engagement_customer_profile', recordId: '2', personId: 2 },
  ];

  it('scores all pairs and the cross-system ones apart', () => {
    // the user and member of person 1 together, its profile with person 2's user and profile
    const links = [
      { system: 'ticketing_user', recordId: '1', fanId: 'a' },
      { system: 'ticketing_member', recordId: '1', fanId: 'a' },
      { system: 'engagement_customer_profile', recordId: '1', fanId: 'b' },
      { system: 'ticketing_user', recordId: '2', fanId: 'b' },
      { system: 'engagement_customer_profile', recordId: '2', fanId: 'b' },
    ];
    const score = scoreIdentityLinks(links, truth);
    // predicted: a 1 pair, b 3 pairs; true: person 1 3 pairs, person 2 1 pair; correct: 1 + 1
    expect(score).toMatchObject({ predictedPairs: 4, truePairs: 4, correctPairs: 2, precision: 0.5, recall: 0.5 });
    // cross-system predicted: b has 1 ticketing x 2 engagement = 2; true: person 1 2x1, person 2 1x1;
    // correct: only person 2's user and profile
    expect(score.crossSystem).toMatchObject({ predictedPairs: 2, truePairs: 3, correctPairs: 1, precision: 0.5 });
    expect(score.crossSystem.recall).toBeCloseTo(1 / 3);
  });
});
