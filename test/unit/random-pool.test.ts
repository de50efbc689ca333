import { describe, expect, it } from 'vitest';
import { random16 } from '../../src/core/random-pool.ts';
import { nieuweBerichtId } from '../../src/domain/webhooks/gebeurtenissen.ts';

describe('random16: pooled random bytes', () => {
  it('16 bytes per draw, never the same twice, also across a refill of the pool (256 draws)', () => {
    const gezien = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const b = random16();
      expect(b.length).toBe(16);
      gezien.add(b.toString('hex'));
    }
    expect(gezien.size).toBe(1000);
  });

  it('webhook message ids: msg_ and 22 base64url characters, distinct', () => {
    const ids = Array.from({ length: 600 }, nieuweBerichtId);
    for (const id of ids) expect(id).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    expect(new Set(ids).size).toBe(600);
  });
});
