/** `insight account close` (docs/beheer.md); a second run on a closed account finishes whatever a first one left. */
import { TX_OPTS, UUID_RE, type Db } from '../../db/client.ts';
import { wisAdressenVanAccount } from '../billing/adresbewaring.ts';
import { trekAlleSleutelsIn } from '../keys/sleutels.ts';
import { verwijderWebhooksVanAccount, zetWebhooksUit } from '../webhooks/account-sluiten.ts';
import { GebruikerFout } from './gebruikers.ts';

export interface Sluiting {
  geslotenOp: Date;
  alGesloten: boolean;
  credits: number;
  sleutels: number;
  gebruikers: number;
  webhooks: number;
  adressen: number;
}

export async function sluitAccount(db: Db, accountId: string, now = new Date()): Promise<Sluiting> {
  if (!UUID_RE.test(accountId)) throw new GebruikerFout('onbekend', `Account ${accountId} bestaat niet.`);
  const deel = await db.$transaction(async (tx) => {
    // The row charges lock first: a charge either committed before this or finds the account closed (afrekenen.sql).
    const [acc] = await tx.$queryRaw<{ credits: number; gesloten_op: Date | null }[]>`SELECT credits, gesloten_op FROM account WHERE id = ${accountId}::uuid FOR UPDATE`;
    if (!acc) throw new GebruikerFout('onbekend', `Account ${accountId} bestaat niet.`);
    const sleutels = await trekAlleSleutelsIn(tx, accountId, now);
    // Stored answers name the addresses looked up; the keys cannot replay them any more.
    await tx.$executeRaw`DELETE FROM idempotentie WHERE key_id IN (SELECT id FROM api_sleutel WHERE account_id = ${accountId}::uuid)`;
    const gebruikers = (await tx.user.deleteMany({ where: { accountId } })).count;
    await zetWebhooksUit(tx, accountId, now);
    if (!acc.gesloten_op) await tx.account.update({ where: { id: accountId }, data: { geslotenOp: now } });
    return { geslotenOp: acc.gesloten_op ? new Date(acc.gesloten_op) : now, alGesloten: !!acc.gesloten_op, credits: acc.credits, sleutels, gebruikers };
  }, TX_OPTS);
  const webhooks = await verwijderWebhooksVanAccount(db, accountId);
  return { ...deel, webhooks, adressen: await wisAdressenVanAccount(db, accountId) };
}
