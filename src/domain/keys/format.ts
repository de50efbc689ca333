/**
 * Decisions section 4: `pct_` + 32 random base62 characters + a 6-character CRC32 checksum, so a leaked or
 * mistyped key is recognised without a database lookup. Only the SHA-256 is stored. Test keys: `pct_test_`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const KEY_PREFIX = 'pct_';
export const TEST_PREFIX = 'pct_test_';
export type Modus = 'live' | 'test';
const ALFABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LEN = 32;
const CHECK_LEN = 6;
export const KEY_LENGTH = KEY_PREFIX.length + RANDOM_LEN + CHECK_LEN;
const KEY_RE = new RegExp(`^${KEY_PREFIX}(?:test_)?([0-9A-Za-z]{${RANDOM_LEN}})([0-9A-Za-z]{${CHECK_LEN}})$`);

function base62(n: number, len: number): string {
  let s = '';
  let v = n >>> 0;
  for (let i = 0; i < len; i++) {
    s = ALFABET[v % 62] + s;
    v = Math.floor(v / 62);
  }
  return s;
}

function randomBase62(len: number): string {
  // Rejection sampling: no modulo bias.
  let out = '';
  while (out.length < len) {
    for (const b of randomBytes(len * 2)) {
      if (b < 248) out += ALFABET[b % 62];
      if (out.length === len) break;
    }
  }
  return out;
}

export function checksum(randomPart: string): string {
  return base62(crc32(randomPart), CHECK_LEN);
}

export function genereerSleutel(modus: Modus = 'live'): string {
  const r = randomBase62(RANDOM_LEN);
  return `${modus === 'test' ? TEST_PREFIX : KEY_PREFIX}${r}${checksum(r)}`;
}

/** Says nothing about whether the key exists. */
export function isGeldigeSleutelvorm(key: string): boolean {
  const m = KEY_RE.exec(key);
  return m !== null && m[2] === checksum(m[1]);
}

export function modusVan(keyOfVoorvoegsel: string): Modus {
  return keyOfVoorvoegsel.startsWith(TEST_PREFIX) ? 'test' : 'live';
}

export function sleutelHash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function voorvoegsel(key: string): string {
  return key.slice(0, 12);
}
