/** A closed account's webhooks: switched off in the closing transaction (no delivery or event after it), then deleted. */
import type { Db } from '../../db/client.ts';
import type { Prisma } from '../../generated/prisma/client.ts';

export async function zetWebhooksUit(tx: Prisma.TransactionClient, accountId: string, now: Date): Promise<number> {
  const r = await tx.webhookEndpoint.updateMany({ where: { accountId }, data: { actief: false, uitgeschakeldOp: now, uitschakelReden: 'Account gesloten.' } });
  return r.count;
}

/** Events first (their deliveries cascade), then the endpoints: also what a retry of a closure that stopped halfway finishes. */
export async function verwijderWebhooksVanAccount(db: Db, accountId: string): Promise<number> {
  await db.webhookEvent.deleteMany({ where: { accountId } });
  return (await db.webhookEndpoint.deleteMany({ where: { accountId } })).count;
}
