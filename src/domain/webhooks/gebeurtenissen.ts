/**
 * Webhook events as an outbox: written in the caller's transaction (the same commit as the usage
 * record and the debit), one delivery row per subscribed active endpoint. A separate worker sends
 * them; nothing is lost when the process dies between commit and send.
 */
import { randomBytes } from 'node:crypto';
import type { Prisma } from '../../generated/prisma/client.ts';

export type GebeurtenisType = 'inzicht.voltooid' | 'inzicht.mislukt' | 'saldo.laag' | 'sleutel.verloopt';
export const GEBEURTENIS_TYPES: GebeurtenisType[] = ['inzicht.voltooid', 'inzicht.mislukt', 'saldo.laag', 'sleutel.verloopt'];

export function nieuweBerichtId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

/** Write the event for every active endpoint of the account that subscribes to its type; no endpoint, no row. */
export async function schrijfGebeurtenis(
  tx: Prisma.TransactionClient,
  opts: { accountId: string; type: GebeurtenisType; data: Record<string, unknown>; now: Date },
): Promise<string | null> {
  const endpoints = await tx.webhookEndpoint.findMany({
    where: { accountId: opts.accountId, actief: true, events: { has: opts.type } },
    select: { id: true },
  });
  if (endpoints.length === 0) return null;
  const id = nieuweBerichtId();
  const payload = { type: opts.type, timestamp: opts.now.toISOString().replace(/Z$/, '+00:00'), data: opts.data };
  await tx.webhookEvent.create({ data: { id, accountId: opts.accountId, type: opts.type, payload: payload as Prisma.InputJsonValue, aangemaaktOp: opts.now } });
  await tx.webhookDelivery.createMany({ data: endpoints.map((e) => ({ eventId: id, endpointId: e.id, volgendePoging: opts.now })) });
  return id;
}
