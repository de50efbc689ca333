/**
 * Login attempts limited per e-mail address and per client IP, in the database so the limit holds
 * across server processes. Failed attempts are counted in the rate-limit table (a sliding one-minute
 * window, as for keys) under a UUID derived from the e-mail or IP and a bucket of its own; a correct
 * password does not count. The attempt that reaches the limit is already answered with 429.
 */
import { createHash } from 'node:crypto';
import { TX_OPTS, type Db } from '../../db/client.ts';
import { VENSTER_MS } from '../limits/snelheid.ts';

/** Failed logins per minute per e-mail address, and per client IP (an office behind one address). */
export const INLOG_LIMIET_EMAIL = 10;
export const INLOG_LIMIET_IP = 30;

interface Teller {
  id: string;
  emmer: string;
  limiet: number;
}

function afgeleidId(waarde: string): string {
  const h = createHash('sha256').update(waarde).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

function tellers(email: string, ip: string): Teller[] {
  return [
    { id: afgeleidId(`email:${email}`), emmer: 'inlog:email', limiet: INLOG_LIMIET_EMAIL },
    { id: afgeleidId(`ip:${ip}`), emmer: 'inlog:ip', limiet: INLOG_LIMIET_IP },
  ];
}

async function stand(db: Pick<Db, 'rateLimitHit'>, t: Teller, now: Date): Promise<{ aantal: number; retryAfter: number }> {
  const grens = new Date(now.getTime() - VENSTER_MS);
  const rows = await db.rateLimitHit.findMany({
    where: { keyId: t.id, emmer: t.emmer, tijdstip: { gt: grens } },
    orderBy: { tijdstip: 'asc' },
    select: { tijdstip: true },
  });
  const oudste = rows[rows.length - t.limiet]?.tijdstip ?? rows[0]?.tijdstip;
  const retryAfter = oudste ? Math.max(1, Math.ceil((oudste.getTime() + VENSTER_MS - now.getTime()) / 1000)) : 0;
  return { aantal: rows.length, retryAfter };
}

/** Seconds to wait when this e-mail or IP has reached its limit; 0 when a login may be tried. */
export async function inlogGeblokkeerd(db: Db, email: string, ip: string, now: Date): Promise<number> {
  let wacht = 0;
  for (const t of tellers(email, ip)) {
    const s = await stand(db, t, now);
    if (s.aantal >= t.limiet) wacht = Math.max(wacht, s.retryAfter);
  }
  return wacht;
}

/** Record a failed login; returns the seconds to wait when this failure reached a limit, else 0. */
export async function registreerMislukteInlog(db: Db, email: string, ip: string, now: Date): Promise<number> {
  const grens = new Date(now.getTime() - VENSTER_MS);
  return db.$transaction(async (tx) => {
    let wacht = 0;
    for (const t of tellers(email, ip)) {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`${t.id}:${t.emmer}`}))`;
      await tx.rateLimitHit.deleteMany({ where: { keyId: t.id, emmer: t.emmer, tijdstip: { lte: grens } } });
      await tx.rateLimitHit.create({ data: { keyId: t.id, emmer: t.emmer, tijdstip: now } });
      const s = await stand(tx, t, now);
      if (s.aantal >= t.limiet) wacht = Math.max(wacht, s.retryAfter);
    }
    return wacht;
  }, TX_OPTS);
}
