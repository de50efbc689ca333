/** A free REST create (a webhook) with an Idempotency-Key: claimed like a lookup's, its answer stored in the create's transaction for a retry. */
import type { Prisma } from '../generated/prisma/client.ts';
import type { AuthContext } from './context.ts';
import { alsHerhaling, claimTermijnMs, geldigeIdempotencyKey } from './afrekening.ts';
import { canoniekeJson, claim, geefVrij, sha256 } from '../domain/idempotentie/idempotentie.ts';

export type Vastleggen<T> = (tx: Prisma.TransactionClient, antwoord: T) => Promise<void>;

export async function idempotentGemaakt<T>(ctx: AuthContext, scope: string, input: unknown, maak: (vastleggen?: Vastleggen<T>) => Promise<T>): Promise<T> {
  if (ctx.idempotencyKey === undefined || ctx.kanaal !== 'rest') return maak();
  const db = ctx.services.db;
  const c = await claim(db, {
    keyId: ctx.principal.keyId,
    scope,
    sleutel: geldigeIdempotencyKey(ctx.idempotencyKey),
    verzoekHash: sha256(canoniekeJson(input)),
    now: ctx.services.now(),
    accountId: ctx.principal.accountId,
    termijnMs: claimTermijnMs(ctx),
  });
  if (c.soort !== 'nieuw') return alsHerhaling(ctx, c).antwoord as T;
  let klaar = false;
  try {
    const uit = await maak(async (tx, antwoord) => {
      await tx.$executeRawUnsafe(`UPDATE idempotentie SET toestand = 'klaar', status = 200, antwoord = $2::jsonb WHERE id = $1::uuid`, c.id, JSON.stringify(antwoord));
    });
    klaar = true;
    return uit;
  } finally {
    if (!klaar) await geefVrij(db, c.id);
  }
}
