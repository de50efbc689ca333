/**
 * Rate limits per key as a sliding-window log in the database, so the limit holds across any number
 * of server processes sharing one PostgreSQL. One transaction per check: an advisory lock per
 * (key, bucket) serialises concurrent requests of the same key; the request is recorded in every
 * bucket only when all buckets allow it, so a refused request spends no quota.
 */
import { TX_OPTS, type Db } from '../../db/client.ts';

export const VENSTER_MS = 60_000;

export interface Emmer {
  naam: string;
  limiet: number;
}

export interface EmmerStand {
  naam: string;
  limiet: number;
  /** Requests left in the window after this one. */
  resterend: number;
  /** Seconds until the window has room again (the oldest counted request leaves it). */
  resetSeconden: number;
}

export interface LimietUitslag {
  toegestaan: boolean;
  standen: EmmerStand[];
  /** Seconds to wait when refused. */
  retryAfter: number;
}

export async function controleerLimiet(db: Db, keyId: string, emmers: Emmer[], now: Date): Promise<LimietUitslag> {
  const grens = new Date(now.getTime() - VENSTER_MS);
  return db.$transaction(async (tx) => {
    const metingen: { emmer: Emmer; aantal: number; oudste: Date | null }[] = [];
    for (const emmer of [...emmers].sort((a, b) => a.naam.localeCompare(b.naam))) {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`${keyId}:${emmer.naam}`}))`;
      await tx.$executeRaw`DELETE FROM snelheidslimiet WHERE key_id = ${keyId}::uuid AND emmer = ${emmer.naam} AND tijdstip <= ${grens}`;
      const [r] = await tx.$queryRaw<{ aantal: number; oudste: Date | null }[]>`
        SELECT count(*)::int AS aantal, min(tijdstip) AS oudste FROM snelheidslimiet
        WHERE key_id = ${keyId}::uuid AND emmer = ${emmer.naam}`;
      metingen.push({ emmer, aantal: r.aantal, oudste: r.oudste ? new Date(r.oudste) : null });
    }
    const toegestaan = metingen.every((m) => m.aantal < m.emmer.limiet);
    if (toegestaan) {
      for (const m of metingen) {
        await tx.rateLimitHit.create({ data: { keyId, emmer: m.emmer.naam, tijdstip: now } });
      }
    }
    const standen = metingen.map((m) => {
      const aantalNa = toegestaan ? m.aantal + 1 : m.aantal;
      const oudste = m.oudste ?? (toegestaan ? now : null);
      const reset = oudste ? Math.max(1, Math.ceil((oudste.getTime() + VENSTER_MS - now.getTime()) / 1000)) : 0;
      return { naam: m.emmer.naam, limiet: m.emmer.limiet, resterend: Math.max(0, m.emmer.limiet - aantalNa), resetSeconden: reset };
    });
    const retryAfter = toegestaan
      ? 0
      : Math.max(...metingen.filter((m) => m.aantal >= m.emmer.limiet).map((m) => standen.find((s) => s.naam === m.emmer.naam)!.resetSeconden), 1);
    return { toegestaan, standen, retryAfter };
  }, TX_OPTS);
}

/** Response headers in the IETF httpapi ratelimit-headers draft syntax (structured fields). */
export function limietHeaders(standen: EmmerStand[]): Record<string, string> {
  return {
    'RateLimit-Policy': standen.map((s) => `"${s.naam}";q=${s.limiet};w=${VENSTER_MS / 1000}`).join(', '),
    RateLimit: standen.map((s) => `"${s.naam}";r=${s.resterend};t=${s.resetSeconden}`).join(', '),
  };
}
