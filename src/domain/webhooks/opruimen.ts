/** Webhook retention (docs/webhooks.md): events and their deliveries go WEBHOOK_RETENTION_DAYS after the event. */
import { sqlRijen, type Db } from '../../db/client.ts';

/** Events per batch (three statements), and batches per round (every five minutes): up to 500,000 events, a national day (8.6 M) in 18 rounds. */
export const OPRUIM_PARTIJ = 5_000;
const MAX_PARTIJEN = 100;

/** A delivery the worker may still make: for a switched-on endpoint waiting or claimed (a lapsed claim is taken over), or claimed until its lease runs out. */
const NOG_TE_DOEN = `(l.toestand IN ('wachtend', 'bezig') AND w.actief OR l.toestand = 'bezig' AND coalesce(l.geclaimd_tot > $3::timestamptz, false))`;

export const WEBHOOK_OPRUIM_SQL = {
  accounts: `SELECT a.id::text AS id FROM account a
             WHERE EXISTS (SELECT 1 FROM webhook_gebeurtenis g WHERE g.account_id = a.id AND g.aangemaakt_op < $1::timestamptz)
             ORDER BY a.id <= $2::uuid, a.id`,
  kandidaten: `SELECT g.id FROM webhook_gebeurtenis g
               WHERE g.account_id = $1::uuid AND g.aangemaakt_op < $2::timestamptz
                 AND NOT EXISTS (SELECT 1 FROM webhook_aflevering l JOIN webhook w ON w.id = l.endpoint_id WHERE l.event_id = g.id AND ${NOG_TE_DOEN})
               ORDER BY g.aangemaakt_op LIMIT $4`,
  // By each delivery's own state; a row another transaction holds is left for a later round: never a lock wait, so no deadlock.
  afleveringen: `DELETE FROM webhook_aflevering d WHERE d.id = ANY (ARRAY(
                   SELECT l.id FROM webhook_aflevering l JOIN webhook w ON w.id = l.endpoint_id
                   WHERE l.event_id = ANY ($1::text[]) AND NOT ${NOG_TE_DOEN.replace('$3', '$2')}
                   FOR UPDATE OF l SKIP LOCKED))`,
  // An event only once none is left, so its foreign key's cascade has nothing to take.
  gebeurtenissen: `DELETE FROM webhook_gebeurtenis g
                   WHERE g.id = ANY ($1::text[]) AND NOT EXISTS (SELECT 1 FROM webhook_aflevering l WHERE l.event_id = g.id)`,
} as const;

/** One per process, the accounts in turn across rounds (after where the last stopped); a round still running when the next is due lets it pass. */
export class WebhookOpruimer {
  private na: string;
  private loopt = false;
  private readonly db: Db;
  private readonly bewaarDagen: number;
  private readonly partij: number;
  private readonly maxPartijen: number;

  /** `vanaf`: the account id the first round starts after (several processes: a random one each, so they do not work in step). */
  constructor(db: Db, bewaarDagen: number, o: { partij?: number; maxPartijen?: number; vanaf?: string } = {}) {
    this.db = db;
    this.bewaarDagen = bewaarDagen;
    this.partij = o.partij ?? OPRUIM_PARTIJ;
    this.maxPartijen = o.maxPartijen ?? MAX_PARTIJEN;
    this.na = o.vanaf ?? '00000000-0000-0000-0000-000000000000';
  }

  /** The number of events removed (with their deliveries). An account that fails is passed, and the first error thrown at the end. */
  async ronde(now: Date): Promise<number> {
    if (this.loopt) return 0;
    this.loopt = true;
    let fout: unknown;
    try {
      const grens = new Date(now.getTime() - this.bewaarDagen * 86_400_000);
      let weg = 0;
      let partijen = 0;
      accounts: for (const { id } of await sqlRijen<{ id: string }>(this.db, WEBHOOK_OPRUIM_SQL.accounts, [grens, this.na])) {
        try {
          for (;;) {
            if (partijen++ >= this.maxPartijen) break accounts;
            const ids = (await sqlRijen<{ id: string }>(this.db, WEBHOOK_OPRUIM_SQL.kandidaten, [id, grens, now, this.partij])).map((r) => r.id);
            if (ids.length > 0) {
              await this.db.$executeRawUnsafe(WEBHOOK_OPRUIM_SQL.afleveringen, ids, now);
              weg += await this.db.$executeRawUnsafe(WEBHOOK_OPRUIM_SQL.gebeurtenissen, ids);
            }
            if (ids.length < this.partij) break;
          }
        } catch (err) {
          fout ??= err;
        }
        this.na = id;
      }
      if (fout) throw fout;
      return weg;
    } finally {
      this.loopt = false;
    }
  }
}
