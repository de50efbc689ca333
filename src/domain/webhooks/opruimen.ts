/** Webhook retention (docs/webhooks.md): events and their deliveries go WEBHOOK_RETENTION_DAYS after the event, unless being sent. */
import { sqlRijen, type Db } from '../../db/client.ts';

/** Rows per DELETE, and statements per run (every five minutes): up to 500,000 events, a national day (8.6 M) in 18 runs. */
export const OPRUIM_PARTIJ = 5_000;
const MAX_PARTIJEN = 100;

export const WEBHOOK_OPRUIM_SQL = {
  accounts: `SELECT a.id::text AS id FROM account a
             WHERE EXISTS (SELECT 1 FROM webhook_gebeurtenis g WHERE g.account_id = a.id AND g.aangemaakt_op < $1::timestamptz)`,
  // The deliveries go with their event (ON DELETE CASCADE, by webhook_aflevering_event_id_idx).
  gebeurtenissen: `DELETE FROM webhook_gebeurtenis e WHERE e.id = ANY (ARRAY(
                     SELECT g.id FROM webhook_gebeurtenis g
                     WHERE g.account_id = $1::uuid AND g.aangemaakt_op < $2::timestamptz
                       AND NOT EXISTS (SELECT 1 FROM webhook_aflevering l WHERE l.event_id = g.id AND l.toestand = 'bezig')
                     ORDER BY g.aangemaakt_op LIMIT $3))`,
} as const;

export async function ruimWebhooksOp(db: Db, now: Date, bewaarDagen: number, partij = OPRUIM_PARTIJ): Promise<number> {
  const grens = new Date(now.getTime() - bewaarDagen * 86_400_000);
  let weg = 0;
  let partijen = 0;
  for (const { id } of await sqlRijen<{ id: string }>(db, WEBHOOK_OPRUIM_SQL.accounts, [grens])) {
    for (;;) {
      if (partijen++ >= MAX_PARTIJEN) return weg;
      const n = await db.$executeRawUnsafe(WEBHOOK_OPRUIM_SQL.gebeurtenissen, id, grens, partij);
      weg += n;
      if (n < partij) break;
    }
  }
  return weg;
}
