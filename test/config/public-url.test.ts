import { describe, expect, it } from 'vitest';
import { isHttpsOrLoopback } from '../../src/config/settings.js';

describe('isHttpsOrLoopback (listen.publicUrl)', () => {
  it('takes https anywhere, and plain http only to loopback', () => {
    for (const url of ['https://hooks.club.example', 'https://10.0.0.5:8443/x', 'http://127.0.0.1:8788', 'http://127.3.2.1', 'http://localhost:1', 'http://[::1]:8788']) expect(isHttpsOrLoopback(url), url).toBe(true);
    for (const url of ['http://hooks.club.example', 'http://0.0.0.0:8788', 'http://10.0.0.5', 'http://127.0.0.1.nip.io', 'http://localhost.club.example', 'not a url']) expect(isHttpsOrLoopback(url), url).toBe(false);
  });
});
