/** verbruik.adres (personal data) is set to NULL USAGE_ADDRESS_RETENTION_DAYS after the look-up; row, credits and ledger stay (docs/beheer.md). */
import { sqlRijen, type Db } from '../../db/client.ts';

/** Rows per statement, statements per round (every five minutes): up to 500,000 addresses a round. */
export const ADRES_PARTIJ = 5_000;
const MAX_PARTIJEN = 100;

export const ADRES_BEWARING_SQL = {
  // The partial index verbruik_adres_bewaring_idx holds only rows with an address: a blanked row leaves it, so each batch starts at the oldest that is left.
  verlopen: `UPDATE verbruik v SET adres = NULL WHERE v.id = ANY (ARRAY(
               SELECT id FROM verbruik WHERE adres IS NOT NULL AND aangemaakt_op < $1::timestamptz
               ORDER BY aangemaakt_op LIMIT $2 FOR UPDATE SKIP LOCKED))`,
  account: `WITH partij AS MATERIALIZED (
              SELECT id, aangemaakt_op FROM verbruik
              WHERE account_id = $1::uuid AND aangemaakt_op <= $2::timestamptz AND (aangemaakt_op, id) < ($2::timestamptz, $3::uuid)
              ORDER BY aangemaakt_op DESC, id DESC LIMIT $4),
            gewist AS (UPDATE verbruik v SET adres = NULL WHERE v.id = ANY (ARRAY(SELECT id FROM partij)) AND v.adres IS NOT NULL RETURNING 1),
            laatste AS (SELECT aangemaakt_op, id FROM partij ORDER BY aangemaakt_op, id LIMIT 1)
            SELECT (SELECT count(*)::int FROM partij) AS n, (SELECT count(*)::int FROM gewist) AS gewist,
                   (SELECT aangemaakt_op FROM laatste) AS tot, (SELECT id::text FROM laatste) AS id`,
} as const;

/** One per process; a round still running when the next is due lets it pass. Several processes take different rows (SKIP LOCKED). */
export class AdresBewaring {
  private loopt = false;
  private readonly db: Db;
  private readonly bewaarDagen: number;
  private readonly partij: number;
  private readonly maxPartijen: number;

  constructor(db: Db, bewaarDagen: number, o: { partij?: number; maxPartijen?: number } = {}) {
    this.db = db;
    this.bewaarDagen = bewaarDagen;
    this.partij = o.partij ?? ADRES_PARTIJ;
    this.maxPartijen = o.maxPartijen ?? MAX_PARTIJEN;
  }

  async ronde(now: Date): Promise<number> {
    if (this.loopt) return 0;
    this.loopt = true;
    try {
      const grens = new Date(now.getTime() - this.bewaarDagen * 86_400_000);
      let gewist = 0;
      for (let i = 0; i < this.maxPartijen; i++) {
        const n = await this.db.$executeRawUnsafe(ADRES_BEWARING_SQL.verlopen, grens, this.partij);
        gewist += n;
        if (n < this.partij) break;
      }
      return gewist;
    } finally {
      this.loopt = false;
    }
  }
}

type Partij = { n: number; gewist: number; tot: Date | string | null; id: string | null };

/** Account closure: newest first along (account_id, aangemaakt_op), each batch after the previous one's last row. */
export async function wisAdressenVanAccount(db: Db, accountId: string, partij = ADRES_PARTIJ): Promise<number> {
  let tot: Date | string = 'infinity';
  let id = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
  let gewist = 0;
  for (;;) {
    const [r]: Partij[] = await sqlRijen<Partij>(db, ADRES_BEWARING_SQL.account, [accountId, tot, id, partij]);
    gewist += r.gewist;
    if (r.n < partij || !r.tot || !r.id) return gewist;
    tot = new Date(r.tot);
    id = r.id;
  }
}
