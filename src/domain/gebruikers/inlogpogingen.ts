/**
 * Login attempts limited per e-mail and per client IP, in the database so the limit holds across processes.
 * An attempt is recorded before the password is checked, so parallel guesses cannot slip past the limit;
 * a correct password takes its record back out, so only failures count. The same table counts a signed-in
 * account's changes in the web app (bucket "app:account"), which no key's rate limit covers.
 */
import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { TX_OPTS, type Db } from '../../db/client.ts';
import { VENSTER_MS } from '../limits/snelheid.ts';

/** Per IP too, for an office behind one address. */
export const INLOG_LIMIET_EMAIL = 10;
export const INLOG_LIMIET_IP = 30;
/** Web-app changes (a key made, a webhook tested, ...) per account per minute: far beyond a person's clicking. */
export const APP_LIMIET_ACCOUNT = 60;
const EMMERS = ['inlog:email', 'inlog:ip', 'app:account'];
/** Share of attempts that also clear every expired row, not only their own. */
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

/** An IPv6 client counts by its /64: one subscriber gets a whole /64, so per address the limit was none. */
export function netwerkVan(ip: string): string {
  try {
    const a = ipaddr.process(ip);
    if (a.kind() === 'ipv4') return a.toString();
    return `${(a as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
  } catch {
    return ip;
  }
}

function tellers(email: string, ip: string): Teller[] {
  return [
    { id: afgeleidId(`email:${email}`), emmer: 'inlog:email', limiet: INLOG_LIMIET_EMAIL },
    { id: afgeleidId(`ip:${netwerkVan(ip)}`), emmer: 'inlog:ip', limiet: INLOG_LIMIET_IP },
  ];
}

export interface InlogPoging {
  rijen: string[];
  /** Set when a limit was already exceeded: refuse without checking. */
  geweigerd: number;
  /** Set when this attempt, if it fails, reaches a limit: answer 429 instead of 401. */
  laatsteKans: number;
}

export async function registreerInlogPoging(db: Db, email: string, ip: string, now: Date): Promise<InlogPoging> {
  return telPogingen(db, tellers(email, ip), now);
}

/** 0 when the account may make this change (counted), else the seconds until it may. */
export async function registreerAppWijziging(db: Db, accountId: string, now: Date): Promise<number> {
  const uit = await telPogingen(db, [{ id: afgeleidId(`account:${accountId}`), emmer: 'app:account', limiet: APP_LIMIET_ACCOUNT }], now);
  return uit.geweigerd;
}

async function telPogingen(db: Db, lijst: Teller[], now: Date): Promise<InlogPoging> {
  const grens = new Date(now.getTime() - VENSTER_MS);
  return db.$transaction(async (tx) => {
    const uit: InlogPoging = { rijen: [], geweigerd: 0, laatsteKans: 0 };
    for (const t of lijst) {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`${t.id}:${t.emmer}`}))`;
      await tx.inlogPoging.deleteMany({ where: { teller: t.id, emmer: t.emmer, tijdstip: { lte: grens } } });
      const eerder = await tx.inlogPoging.findMany({ where: { teller: t.id, emmer: t.emmer }, orderBy: { tijdstip: 'asc' }, select: { tijdstip: true } });
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
    // Rows of e-mails, IPs and accounts that never try again would stay forever.
    if (Math.random() < OPRUIMKANS) {
      await tx.inlogPoging.deleteMany({ where: { emmer: { in: EMMERS }, tijdstip: { lte: grens } } });
    }
    return uit;
  }, TX_OPTS);
}

export async function vergeefInlogPoging(db: Db, poging: InlogPoging): Promise<void> {
  if (poging.rijen.length) await db.inlogPoging.deleteMany({ where: { id: { in: poging.rijen } } });
}
