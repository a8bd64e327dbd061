import { describe, expect, it } from 'vitest';
import * as undici from 'undici';
import { Agent } from '../../../src/extract/http/undici-agent.js';

describe('the Agent loaded without the rest of undici', () => {
  it('is the very class undici exports, so an upgrade that moves its module fails here', () => {
    expect(Agent).toBe(undici.Agent);
  });
});
