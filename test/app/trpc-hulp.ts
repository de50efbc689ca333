/**
 * Calling the web app's /trpc over HTTP (app.inject) as the browser does: queries as GET with ?input=,
 * mutations as POST with a JSON body, the session cookie and the CSRF header.
 */
import { expect } from 'vitest';
import type { TestApp } from '../support/app.ts';
import { maakGebruiker } from '../../src/domain/gebruikers/gebruikers.ts';

export interface Sessie {
  cookie: string;
  csrf: string;
  accountId: string;
  email: string;
}

export interface TrpcAntwoord {
  status: number;
  headers: Record<string, unknown>;
  data: any;
  fout?: string;
  setCookie: string[];
}

export interface TrpcOpties {
  sessie?: Partial<Sessie>;
  /** Leave out the CSRF header even when a session is given. */
  zonderCsrf?: boolean;
  headers?: Record<string, string>;
  ip?: string;
}

export const WACHTWOORD = 'een-lang-genoeg-wachtwoord';

export async function trpc(t: TestApp, soort: 'query' | 'mutation', pad: string, input?: unknown, o: TrpcOpties = {}): Promise<TrpcAntwoord> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.sessie?.cookie) headers.cookie = o.sessie.cookie;
  if (o.sessie?.csrf && !o.zonderCsrf) headers['x-csrf-token'] = o.sessie.csrf;
  const res =
    soort === 'query'
      ? await t.app.inject({ method: 'GET', url: `/trpc/${pad}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`, headers, remoteAddress: o.ip })
      : await t.app.inject({ method: 'POST', url: `/trpc/${pad}`, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(input ?? null), remoteAddress: o.ip });
  const body = res.json();
  const sc = res.headers['set-cookie'];
  return {
    status: res.statusCode,
    headers: res.headers,
    data: body.result?.data,
    fout: body.error?.data?.fout,
    setCookie: sc === undefined ? [] : Array.isArray(sc) ? sc : [String(sc)],
  };
}

/** Expect a refusal with this status and a Dutch message. */
export function expectWeigering(r: TrpcAntwoord, status: number): string {
  expect(r.status, r.fout).toBe(status);
  expect(r.fout).toMatch(/^[A-Z].{5,}/);
  expect(r.data).toBeUndefined();
  return r.fout!;
}

let n = 0;

export async function gebruiker(t: TestApp, credits = 1000): Promise<{ accountId: string; email: string }> {
  const acc = await t.account(credits);
  const email = `gebruiker-${process.pid}-${++n}@voorbeeld.nl`;
  await maakGebruiker(t.db.prisma, { accountId: acc.id, email, wachtwoord: WACHTWOORD });
  return { accountId: acc.id, email };
}

export async function aanmelden(t: TestApp, credits = 1000): Promise<Sessie> {
  const g = await gebruiker(t, credits);
  const r = await trpc(t, 'mutation', 'sessie.aanmelden', { email: g.email, wachtwoord: WACHTWOORD }, { ip: `10.9.${n % 250}.${(n * 7) % 250}` });
  expect(r.status).toBe(200);
  const cookie = r.setCookie.find((c) => c.startsWith('insight_sessie='))!.split(';')[0];
  return { cookie, csrf: r.data.csrf, ...g };
}
