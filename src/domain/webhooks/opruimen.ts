/** Webhook retention (docs/webhooks.md): events and their deliveries go WEBHOOK_RETENTION_DAYS after the event. */
import { sqlRijen, type Db } from '../../db/client.ts';

/** Rows per DELETE, and statements per round (every five minutes): up to 500,000 events, a national day (8.6 M) in 18 rounds. */
export const OPRUIM_PARTIJ = 5_000;
const MAX_PARTIJEN = 100;
const GEEN_ACCOUNT = '00000000-0000-0000-0000-000000000000';

/** A delivery the worker may still make: waiting for a switched-on endpoint, or being sent (its lease not run out). */
const NOG_TE_DOEN = `(l.toestand = 'wachtend' AND w.actief OR l.toestand = 'bezig' AND coalesce(l.geclaimd_tot > $4::timestamptz, false))`;

export const WEBHOOK_OPRUIM_SQL = {
  // Round robin: the accounts after the one the previous round stopped at, then the others.
  accounts: `SELECT a.id::text AS id FROM account a
             WHERE EXISTS (SELECT 1 FROM webhook_gebeurtenis g WHERE g.account_id = a.id AND g.aangemaakt_op < $1::timestamptz)
             ORDER BY a.id <= $2::uuid, a.id`,
  // Deliveries by their target row's state (rechecked after a lock wait); an event only once none is left, so
  // its foreign key's cascade has nothing to take that the worker has claimed in the meantime.
  gebeurtenissen: `WITH kandidaat AS MATERIALIZED (
                     SELECT g.id FROM webhook_gebeurtenis g
                     WHERE g.account_id = $1::uuid AND g.aangemaakt_op < $2::timestamptz
                       AND NOT EXISTS (SELECT 1 FROM webhook_aflevering l JOIN webhook w ON w.id = l.endpoint_id WHERE l.event_id = g.id AND ${NOG_TE_DOEN})
                     ORDER BY g.aangemaakt_op LIMIT $3),
                   weg AS (
                     DELETE FROM webhook_aflevering l USING webhook w
                     WHERE l.event_id = ANY (ARRAY(SELECT id FROM kandidaat)) AND w.id = l.endpoint_id AND NOT ${NOG_TE_DOEN}
                     RETURNING l.id)
                   DELETE FROM webhook_gebeurtenis g
                   WHERE g.id = ANY (ARRAY(SELECT id FROM kandidaat))
                     AND NOT EXISTS (SELECT 1 FROM webhook_aflevering l WHERE l.event_id = g.id AND l.id <> ALL (ARRAY(SELECT id FROM weg)))`,
} as const;

/** One per process; a round that has not finished when the next is due lets that one pass. */
export class WebhookOpruimer {
  private na = GEEN_ACCOUNT;
  private loopt = false;
  private readonly db: Db;
  private readonly bewaarDagen: number;
  private readonly partij: number;
  private readonly maxPartijen: number;

  constructor(db: Db, bewaarDagen: number, partij = OPRUIM_PARTIJ, maxPartijen = MAX_PARTIJEN) {
    this.db = db;
    this.bewaarDagen = bewaarDagen;
    this.partij = partij;
    this.maxPartijen = maxPartijen;
  }

  /** The number of events removed (with their deliveries). */
  async ronde(now: Date): Promise<number> {
    if (this.loopt) return 0;
    this.loopt = true;
    try {
      const grens = new Date(now.getTime() - this.bewaarDagen * 86_400_000);
      let weg = 0;
      let partijen = 0;
      for (const { id } of await sqlRijen<{ id: string }>(this.db, WEBHOOK_OPRUIM_SQL.accounts, [grens, this.na])) {
        for (;;) {
          if (partijen++ >= this.maxPartijen) return weg;
          const n = await this.db.$executeRawUnsafe(WEBHOOK_OPRUIM_SQL.gebeurtenissen, id, grens, this.partij, now);
          weg += n;
          if (n < this.partij) break;
        }
        this.na = id;
      }
      return weg;
    } finally {
      this.loopt = false;
    }
  }
}
