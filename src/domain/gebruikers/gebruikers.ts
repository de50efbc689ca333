/**
 * The browser keeps the session token (HttpOnly cookie), the database only its SHA-256. The CSRF token is
 * derived from the session token, so it is bound to the session and needs no storage.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { UUID_RE, type Db } from '../../db/client.ts';
import { controleerWachtwoord, hashWachtwoord, SCHIJNHASH, wachtwoordProbleem } from './wachtwoord.ts';

/** Absolute; a new login starts a new one. */
export const SESSIE_DUUR_MS = 12 * 3_600_000;

export class GebruikerFout extends Error {
  readonly soort: 'ongeldig' | 'bestaat_al' | 'onbekend';
  constructor(soort: GebruikerFout['soort'], message: string) {
    super(message);
    this.soort = soort;
  }
}

export function normaliseerEmail(email: string): string {
  return email.trim().toLowerCase();
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function controleerInvoer(email: string, wachtwoord: string) {
  if (!EMAIL.test(email) || email.length > 254) throw new GebruikerFout('ongeldig', 'Ongeldig e-mailadres.');
  const probleem = wachtwoordProbleem(wachtwoord);
  if (probleem) throw new GebruikerFout('ongeldig', probleem);
}

export async function maakGebruiker(db: Db, opts: { accountId: string; email: string; wachtwoord: string }): Promise<{ id: string; email: string }> {
  const email = normaliseerEmail(opts.email);
  controleerInvoer(email, opts.wachtwoord);
  const account = await db.account.findUnique({ where: { id: opts.accountId }, select: { geslotenOp: true } });
  if (!account) throw new GebruikerFout('onbekend', `Account ${opts.accountId} bestaat niet.`);
  if (account.geslotenOp) throw new GebruikerFout('ongeldig', `Account ${opts.accountId} is gesloten: er kunnen geen gebruikers meer bij.`);
  if (await db.user.findUnique({ where: { email }, select: { id: true } })) {
    throw new GebruikerFout('bestaat_al', `Er is al een gebruiker met e-mailadres ${email}.`);
  }
  const wachtwoordHash = await hashWachtwoord(opts.wachtwoord);
  return db.user.create({ data: { accountId: opts.accountId, email, wachtwoordHash }, select: { id: true, email: true } });
}

/** Ends every session of the user: a stolen session does not survive a reset. */
export async function zetWachtwoord(db: Db, opts: { email: string; wachtwoord: string }): Promise<void> {
  const email = normaliseerEmail(opts.email);
  controleerInvoer(email, opts.wachtwoord);
  const user = await db.user.findUnique({ where: { email }, select: { id: true } });
  if (!user) throw new GebruikerFout('onbekend', `Er is geen gebruiker met e-mailadres ${email}.`);
  const wachtwoordHash = await hashWachtwoord(opts.wachtwoord);
  await db.$transaction([
    db.user.update({ where: { id: user.id }, data: { wachtwoordHash } }),
    db.session.deleteMany({ where: { userId: user.id } }),
  ]);
}

export interface GebruikerRij {
  id: string;
  email: string;
  aangemaaktOp: Date;
  laatstIngelogdOp: Date | null;
  sessies: number;
}

/** Never the password hash. A login from before laatst_ingelogd_op existed counts by its newest session. */
export async function lijstGebruikers(db: Db, accountId: string, now = new Date()): Promise<GebruikerRij[]> {
  if (!UUID_RE.test(accountId) || !(await db.account.findUnique({ where: { id: accountId }, select: { id: true } }))) {
    throw new GebruikerFout('onbekend', `Account ${accountId} bestaat niet.`);
  }
  const rijen = await db.user.findMany({
    where: { accountId },
    orderBy: { aangemaaktOp: 'asc' },
    select: { id: true, email: true, aangemaaktOp: true, laatstIngelogdOp: true, sessions: { select: { aangemaaktOp: true, verlooptOp: true }, orderBy: { aangemaaktOp: 'desc' } } },
  });
  return rijen.map((u) => ({ id: u.id, email: u.email, aangemaaktOp: u.aangemaaktOp, laatstIngelogdOp: u.laatstIngelogdOp ?? u.sessions[0]?.aangemaaktOp ?? null, sessies: u.sessions.filter((x) => x.verlooptOp > now).length }));
}

/** The user and every session go in one statement (the foreign key cascades): a signed-in browser is refused on its next request. */
export async function verwijderGebruiker(db: Db, emailInvoer: string): Promise<{ id: string; email: string; accountId: string; sessies: number }> {
  const email = normaliseerEmail(emailInvoer);
  const user = await db.user.findUnique({ where: { email }, select: { id: true, accountId: true, _count: { select: { sessions: true } } } });
  if (!user || (await db.user.deleteMany({ where: { id: user.id } })).count === 0) throw new GebruikerFout('onbekend', `Er is geen gebruiker met e-mailadres ${email}.`);
  return { id: user.id, email, accountId: user.accountId, sessies: user._count.sessions };
}

/** An unknown e-mail costs the same hash as a wrong password. */
export async function controleerLogin(db: Db, emailInvoer: string, wachtwoord: string): Promise<{ id: string; accountId: string; accountNaam: string; email: string } | null> {
  const email = normaliseerEmail(emailInvoer);
  const user = await db.user.findUnique({ where: { email }, select: { id: true, accountId: true, email: true, wachtwoordHash: true, account: { select: { naam: true } } } });
  const klopt = await controleerWachtwoord(wachtwoord, user?.wachtwoordHash ?? (await SCHIJNHASH));
  return user && klopt ? { id: user.id, accountId: user.accountId, accountNaam: user.account.naam, email: user.email } : null;
}

function sessieId(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function csrfVoor(token: string): string {
  return createHash('sha256').update(`csrf:${token}`).digest('base64url');
}

export function csrfKlopt(token: string, gegeven: string | undefined): boolean {
  if (!gegeven) return false;
  const a = Buffer.from(csrfVoor(token));
  const b = Buffer.from(gegeven);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function startSessie(db: Db, userId: string, now: Date): Promise<{ token: string; verlooptOp: Date }> {
  const token = randomBytes(32).toString('base64url');
  const verlooptOp = new Date(now.getTime() + SESSIE_DUUR_MS);
  // Cleared at each login so the table does not grow without bound.
  await db.session.deleteMany({ where: { userId, verlooptOp: { lte: now } } });
  await db.session.create({ data: { id: sessieId(token), userId, verlooptOp } });
  await db.user.update({ where: { id: userId }, data: { laatstIngelogdOp: now } });
  return { token, verlooptOp };
}

export interface Sessie {
  id: string;
  userId: string;
  accountId: string;
  email: string;
  accountNaam: string;
  verlooptOp: Date;
}

/** Expired: then it is deleted. */
export async function zoekSessie(db: Db, token: string | undefined, now: Date): Promise<Sessie | null> {
  if (!token || token.length > 100) return null;
  const id = sessieId(token);
  const s = await db.session.findUnique({
    where: { id },
    select: { id: true, verlooptOp: true, user: { select: { id: true, email: true, accountId: true, account: { select: { naam: true } } } } },
  });
  if (!s) return null;
  if (s.verlooptOp.getTime() <= now.getTime()) {
    await db.session.deleteMany({ where: { id } });
    return null;
  }
  return { id: s.id, userId: s.user.id, accountId: s.user.accountId, email: s.user.email, accountNaam: s.user.account.naam, verlooptOp: s.verlooptOp };
}

export async function beeindigSessie(db: Db, id: string): Promise<void> {
  await db.session.deleteMany({ where: { id } });
}

export const DEMO_EMAIL = 'demo@insight.example';

/** Its random password is printed once by the first start. */
export async function maakDemoGebruiker(db: Db, accountId: string): Promise<{ email: string; wachtwoord: string }> {
  const wachtwoord = randomBytes(12).toString('base64url');
  await maakGebruiker(db, { accountId, email: DEMO_EMAIL, wachtwoord });
  return { email: DEMO_EMAIL, wachtwoord };
}
