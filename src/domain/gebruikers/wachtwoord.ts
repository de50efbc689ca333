/** scrypt, stored as "scrypt$N$r$p$salt$hash", so the cost can be raised without breaking old hashes. */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const N = 2 ** 15;
const R = 8;
const P = 1;
const LENGTE = 32;
/** scrypt needs 128 * N * r bytes; Node's default cap (32 MiB) is exactly too small for N = 2^15. */
const MAXMEM = 64 * 1024 * 1024;

export const MIN_WACHTWOORD = 12;
export const MAX_WACHTWOORD = 200;

function scrypt(wachtwoord: string, salt: Buffer, lengte: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCb(wachtwoord.normalize('NFC'), salt, lengte, opts, (err, key) => (err ? reject(err) : resolve(key))));
}

export function wachtwoordProbleem(wachtwoord: string): string | null {
  if (wachtwoord.length < MIN_WACHTWOORD) return `Het wachtwoord moet minstens ${MIN_WACHTWOORD} tekens hebben.`;
  if (wachtwoord.length > MAX_WACHTWOORD) return `Het wachtwoord mag hoogstens ${MAX_WACHTWOORD} tekens hebben.`;
  return null;
}

export async function hashWachtwoord(wachtwoord: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(wachtwoord, salt, LENGTE, { N, r: R, p: P, maxmem: MAXMEM });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function controleerWachtwoord(wachtwoord: string, opgeslagen: string): Promise<boolean> {
  const delen = opgeslagen.split('$');
  if (delen.length !== 6 || delen[0] !== 'scrypt') return false;
  const [n, r, p] = delen.slice(1, 4).map(Number);
  const salt = Buffer.from(delen[4], 'base64');
  const verwacht = Buffer.from(delen[5], 'base64');
  if (![n, r, p].every(Number.isSafeInteger) || verwacht.length === 0) return false;
  const hash = await scrypt(wachtwoord, salt, verwacht.length, { N: n, r, p, maxmem: Math.max(MAXMEM, 256 * n * r) });
  return timingSafeEqual(hash, verwacht);
}

/** Checked against when an e-mail is unknown, so the answer takes as long. */
export const SCHIJNHASH = hashWachtwoord(randomBytes(18).toString('base64url'));
