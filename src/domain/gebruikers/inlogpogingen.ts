/**
 * Login attempts limited per e-mail address and per client IP, in the database so the limit holds
 * across server processes. Attempts are rows of `inlog_poging` (a sliding one-minute window) under a UUID
 * derived from the e-mail or IP and a bucket of their own. An attempt is
 * recorded before the password is checked, so a burst of parallel guesses cannot slip past the limit;
 * a correct password takes its own record back out, so only failures count. The failure that reaches
 * the limit is already answered with 429, and so is every attempt after it until the window has room.
 */
import { createHash } from 'node:crypto';
import { TX_OPTS, type Db } from '../../db/client.ts';
import { VENSTER_MS } from '../limits/snelheid.ts';

/** Failed logins per minute per e-mail address, and per client IP (an office behind one address). */
export const INLOG_LIMIET_EMAIL = 10;
export const INLOG_LIMIET_IP = 30;
/** Share of attempts that also clear every expired login row (not only their own e-mail's and IP's). */
const OPRUIMKANS = 0.02;

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

export interface InlogPoging {
  /** The rate-limit rows of this attempt (taken back out when the password was right). */
  rijen: string[];
  /** Seconds to wait when a limit was already exceeded before this attempt: refuse without checking. */
  geweigerd: number;
  /** Seconds to wait when this attempt, if it fails, reaches a limit: answer 429 instead of 401. */
  laatsteKans: number;
}

/** Record an attempt before the password is checked. */
export async function registreerInlogPoging(db: Db, email: string, ip: string, now: Date): Promise<InlogPoging> {
  const grens = new Date(now.getTime() - VENSTER_MS);
  return db.$transaction(async (tx) => {
    const uit: InlogPoging = { rijen: [], geweigerd: 0, laatsteKans: 0 };
    for (const t of tellers(email, ip)) {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`${t.id}:${t.emmer}`}))`;
      await tx.inlogPoging.deleteMany({ where: { teller: t.id, emmer: t.emmer, tijdstip: { lte: grens } } });
      const eerder = await tx.inlogPoging.findMany({ where: { teller: t.id, emmer: t.emmer }, orderBy: { tijdstip: 'asc' }, select: { tijdstip: true } });
      // Seconds until the window holds fewer than `limiet` attempts again.
      const vrij = (n: number) => {
        const t0 = eerder[eerder.length - n]?.tijdstip ?? now;
        return Math.max(1, Math.ceil((t0.getTime() + VENSTER_MS - now.getTime()) / 1000));
      };
      if (eerder.length >= t.limiet) {
        uit.geweigerd = Math.max(uit.geweigerd, vrij(t.limiet));
        continue;
      }
      const rij = await tx.inlogPoging.create({ data: { teller: t.id, emmer: t.emmer, tijdstip: now }, select: { id: true } });
      uit.rijen.push(rij.id);
      if (eerder.length + 1 >= t.limiet) uit.laatsteKans = Math.max(uit.laatsteKans, vrij(t.limiet - 1));
    }
    // Rows of e-mails and IPs that never try again would stay forever; now and then clear all old ones.
    if (Math.random() < OPRUIMKANS) {
      await tx.inlogPoging.deleteMany({ where: { emmer: { in: ['inlog:email', 'inlog:ip'] }, tijdstip: { lte: grens } } });
    }
    return uit;
  }, TX_OPTS);
}

/** A successful login does not count against the limits. */
export async function vergeefInlogPoging(db: Db, poging: InlogPoging): Promise<void> {
  if (poging.rijen.length) await db.inlogPoging.deleteMany({ where: { id: { in: poging.rijen } } });
}
