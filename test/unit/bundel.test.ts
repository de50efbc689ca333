import { describe, expect, it } from 'vitest';
import { Bundelaar } from '../../src/db/bundel.ts';

/** A batcher whose statements the test completes by hand, recording what each one carried. */
function handmatig(maxGrootte = 100) {
  const statements: { sleutel: string; items: number[]; klaar: (u: (string | Error)[] | Error) => void }[] = [];
  const b = new Bundelaar<number, string>({
    maxGrootte,
    verwerk: (sleutel, items) =>
      new Promise((resolve, reject) => {
        statements.push({ sleutel, items, klaar: (u) => (u instanceof Error ? reject(u) : resolve(u)) });
      }),
  });
  return { b, statements };
}
const rust = () => new Promise((r) => setImmediate(r));

describe('Bundelaar (natural batching per hot row)', () => {
  it('a request alone goes at once, in a statement of its own', async () => {
    const { b, statements } = handmatig();
    const p = b.voer('a', 1);
    expect(statements.map((s) => s.items)).toEqual([[1]]);
    statements[0].klaar(['een']);
    expect(await p).toBe('een');
  });

  it('what arrives while a statement is in flight goes next, together, in arrival order', async () => {
    const { b, statements } = handmatig();
    const p1 = b.voer('a', 1);
    const rest = [2, 3, 4].map((i) => b.voer('a', i));
    expect(statements).toHaveLength(1);
    statements[0].klaar(['r1']);
    await rust();
    expect(statements.map((s) => s.items)).toEqual([[1], [2, 3, 4]]);
    statements[1].klaar(['r2', 'r3', 'r4']);
    expect(await p1).toBe('r1');
    expect(await Promise.all(rest)).toEqual(['r2', 'r3', 'r4']);
    // Nothing in flight any more: the next request goes at once again.
    void b.voer('a', 5);
    expect(statements).toHaveLength(3);
  });

  it('keys are independent: another row never waits for this one', () => {
    const { b, statements } = handmatig();
    void b.voer('a', 1);
    void b.voer('b', 2);
    void b.voer('a', 3);
    expect(statements.map((s) => [s.sleutel, s.items])).toEqual([
      ['a', [1]],
      ['b', [2]],
    ]);
  });

  it('at most maxGrootte items per statement', async () => {
    const { b, statements } = handmatig(2);
    void b.voer('a', 0);
    const ps = [1, 2, 3, 4, 5].map((i) => b.voer('a', i));
    statements[0].klaar(['x']);
    await rust();
    expect(statements[1].items).toEqual([1, 2]);
    statements[1].klaar(['1', '2']);
    await rust();
    expect(statements[2].items).toEqual([3, 4]);
    statements[2].klaar(['3', '4']);
    await rust();
    expect(statements[3].items).toEqual([5]);
    statements[3].klaar(['5']);
    expect(await Promise.all(ps)).toEqual(['1', '2', '3', '4', '5']);
  });

  it('an Error for one item fails that request only; a failed statement fails each of its requests, not the next', async () => {
    const { b, statements } = handmatig();
    const p0 = b.voer('a', 0);
    const [p1, p2] = [1, 2].map((i) => b.voer('a', i));
    statements[0].klaar(new Error('verbinding weg'));
    await expect(p0).rejects.toThrow('verbinding weg');
    await rust();
    statements[1].klaar([new Error('item 1 kapot'), 'twee']);
    await expect(p1).rejects.toThrow('item 1 kapot');
    expect(await p2).toBe('twee');
  });

  it('a statement that returns too few results fails the requests without one', async () => {
    const { b, statements } = handmatig();
    const p0 = b.voer('a', 0);
    statements[0].klaar([]);
    await expect(p0).rejects.toThrow(/geen uitkomst/);
  });
});
