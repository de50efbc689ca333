/**
 * Small request and assertion helpers shared by the lookup, charging, idempotency and rate-limit
 * tests: one POST to a lookup through app.inject, the contract's error shape, and balance reads.
 */
import { expect } from 'vitest';
import type { TestApp } from './app.ts';

export const LOOKUPS = ['adres', 'woz', 'energielabel', 'woningtype', 'invloeden'] as const;
export type Lookup = (typeof LOOKUPS)[number];

/** Credits per lookup (decisions section 1); 1 credit = 5 cent. */
export const PRIJS: Record<Lookup, number> = { adres: 1, woz: 1, energielabel: 1, woningtype: 1, invloeden: 16 };
export const CENT_PER_CREDIT = 5;

export interface Antwoord {
  statusCode: number;
  body: string;
  headers: Record<string, string | string[] | number | undefined>;
  json(): any;
}

/** POST /api/v1/inzicht/<lookup>. A string payload is sent as is (for malformed JSON). */
export async function lookup(
  t: TestApp,
  voorziening: string,
  key: string | undefined,
  payload: unknown,
  headers: Record<string, string> = {},
): Promise<Antwoord> {
  return (await t.app.inject({
    method: 'POST',
    url: `/api/v1/inzicht/${voorziening}`,
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  })) as unknown as Antwoord;
}

/** Zod's own English defaults, or internals, must never reach the caller. */
const NIET_NEDERLANDS = /\b(Invalid|Expected|Required|Unrecognized|received|must be|expected|Too small|Too big|undefined)\b|"code"|"issues"|"stack"|TRPC|at .*\.(ts|js):\d+/;

/** Assert the contract's error shape: exactly `{"fout": "<Dutch sentence>"}` with this status. */
export function expectFout(res: Antwoord, status: number, label = ''): string {
  expect(res.statusCode, `${label} status (${res.body})`).toBe(status);
  expect(String(res.headers['content-type']), label).toMatch(/^application\/json/);
  const body = JSON.parse(res.body);
  expect(Object.keys(body), label).toEqual(['fout']);
  expect(typeof body.fout, label).toBe('string');
  expect(body.fout.length, label).toBeGreaterThan(5);
  expect(body.fout, `${label}: melding is niet (alleen) Nederlands`).not.toMatch(NIET_NEDERLANDS);
  return body.fout as string;
}

export async function saldo(t: TestApp, accountId: string): Promise<number> {
  return (await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId }, select: { credits: true } })).credits;
}

/** Everything that money or usage leaves behind for one account. */
export async function sporen(t: TestApp, accountId: string) {
  const [credits, ledger, usage] = await Promise.all([
    saldo(t, accountId),
    t.db.prisma.ledgerEntry.count({ where: { accountId } }),
    t.db.prisma.usageRecord.count({ where: { accountId } }),
  ]);
  return { credits, ledger, usage };
}
