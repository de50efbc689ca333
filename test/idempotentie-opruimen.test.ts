import { describe, expect, it } from 'vitest';
import { createAccount } from '../src/domain/billing/tegoed.ts';
import { claim, ruimIdempotentieOp } from '../src/domain/idempotentie/idempotentie.ts';
import { createKey } from '../src/domain/keys/sleutels.ts';
import { dialect, useTestDatabase } from './support/db.ts';

/** Issue 12 item 7: claims left "bezig" by a killed process, and records past their window, are removed. */
describe(`idempotency clean-up (${dialect})`, () => {
  const db = useTestDatabase();

  it('removes abandoned claims and expired records, keeps running claims and live answers', async () => {
    const nu = new Date('2026-11-22T10:00:00Z');
    const { id: accountId } = await createAccount(db.prisma, { naam: 'opruimen', credits: 10 });
    const sleutel = await createKey(db.prisma, { accountId, naam: 'k', now: nu });
    const keyId = (await db.prisma.apiKey.findFirstOrThrow({ where: { accountId } })).id;
    const c = (s: string, t: Date) => claim(db.prisma, { keyId, scope: 'woz', sleutel: s, verzoekHash: 'h', now: t, accountId });
    await c('verlaten', new Date(nu.getTime() - 5 * 60_000));
    await c('lopend', new Date(nu.getTime() - 10_000));
    await c('verlopen', new Date(nu.getTime() - 25 * 3_600_000));
    await db.prisma.idempotencyRecord.updateMany({ where: { sleutel: 'verlopen' }, data: { toestand: 'klaar', status: 200 } });
    await c('klaar', new Date(nu.getTime() - 3_600_000));
    await db.prisma.idempotencyRecord.updateMany({ where: { sleutel: 'klaar' }, data: { toestand: 'klaar', status: 200 } });
    expect(sleutel.key).toMatch(/^pct_/);
    expect(await ruimIdempotentieOp(db.prisma, nu)).toBe(2);
    const over = (await db.prisma.idempotencyRecord.findMany({ where: { keyId } })).map((r) => r.sleutel).sort();
    expect(over).toEqual(['klaar', 'lopend']);
  });
});
