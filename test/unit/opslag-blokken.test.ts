import { describe, expect, it } from 'vitest';
import { blokken } from '../../src/domain/valuation/opslag.ts';

const bytes = (n: number, start: number) => Uint8Array.from({ length: n }, (_, i) => (start + i) % 251);

describe('the stored model cut in blocks (opslag.ts)', () => {
  it('gives the parts back whole, in blocks of at most the block size, copying only blocks that straddle two parts', () => {
    for (const lengtes of [[8, 25, 3], [8, 0, 10], [10, 10], [1], [8, 24, 40, 1], []]) {
      let start = 0;
      const delen = lengtes.map((n) => {
        const d = bytes(n, start);
        start += n;
        return d;
      });
      const uit = [...blokken(delen, 10)];
      expect(Buffer.concat(uit)).toEqual(Buffer.concat(delen));
      expect(uit.every((b) => b.byteLength > 0 && b.byteLength <= 10)).toBe(true);
      // Every block but the last is full.
      expect(uit.slice(0, -1).every((b) => b.byteLength === 10)).toBe(true);
    }
    const groot = bytes(30, 0);
    const [a, b, c] = [...blokken([groot], 10)];
    // Blocks inside one part are views of it, not copies.
    expect([a, b, c].every((x) => x.buffer === groot.buffer)).toBe(true);
  });
});
