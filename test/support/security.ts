/**
 * The one security helper (house style: "a shared helper runs no key / wrong key / wrong rights against
 * every route"). It reads the operations from the served OpenAPI document, so a new route is covered
 * the day it is added, and checks for every operation:
 *   - no key, malformed keys, unknown well-formed keys, expired and revoked keys -> 401 with the
 *     contract's body and `WWW-Authenticate: Bearer`;
 *   - a management key (`beheer`) -> 403 on every /inzicht/* route, 200 on /whoami;
 *   - an insight key without `inzicht:lezen` -> 403 on every /inzicht/* route;
 * and that none of these charges anything or writes usage. Requests carry a valid body for an address
 * with every lookup's data, so a check that let a request through would be seen as a charge.
 */
import { expect } from 'vitest';
import type { TestApp } from './app.ts';
import { adresBody, maakVolledigAdres } from './register.ts';
import { genereerSleutel, sleutelHash } from '../../src/domain/keys/format.ts';
import { expectFout, type Antwoord } from './http.ts';

export const ONGELDIGE_SLEUTEL = { fout: 'Ongeldige of ontbrekende sleutel.' };

export interface Operatie {
  methode: string;
  /** Path as in the document, e.g. /inzicht/woz (relative to /api/v1). */
  pad: string;
  url: string;
  body?: unknown;
  /** An /inzicht/* operation: needs family `inzicht` and right `inzicht:lezen`. */
  inzicht: boolean;
}

interface OpenApiDoc {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: unknown }> } }>>;
  components?: { schemas?: Record<string, unknown> };
}

const METHODES = ['get', 'post', 'put', 'patch', 'delete'];

function resolve(doc: OpenApiDoc, schema: unknown): Record<string, unknown> | undefined {
  const s = schema as { $ref?: string } | undefined;
  if (s?.$ref) return doc.components?.schemas?.[s.$ref.replace('#/components/schemas/', '')] as Record<string, unknown>;
  return s as Record<string, unknown> | undefined;
}

/** Every operation of the served OpenAPI document, with a valid body where it takes one. */
export async function operaties(t: TestApp): Promise<Operatie[]> {
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  const doc = res.json() as OpenApiDoc;
  const adres = await maakVolledigAdres(t.db.prisma);
  const out: Operatie[] = [];
  for (const [pad, item] of Object.entries(doc.paths)) {
    for (const methode of METHODES) {
      const op = item[methode];
      if (!op) continue;
      let body: unknown;
      const schema = resolve(doc, op.requestBody?.content?.['application/json']?.schema);
      if (schema) {
        const props = (schema.properties ?? {}) as Record<string, unknown>;
        // Every body of this API so far is `{adres, ...optional}`; anything else starts from {}.
        body = 'adres' in props ? adresBody(adres) : {};
      }
      out.push({ methode: methode.toUpperCase(), pad, url: `/api/v1${pad.replace(/\{[^}]+\}/g, '1')}`, body, inzicht: pad.startsWith('/inzicht/') });
    }
  }
  return out;
}

export async function roep(t: TestApp, op: Pick<Operatie, 'methode' | 'url' | 'body'>, authorization?: string, extra: Record<string, string> = {}): Promise<Antwoord> {
  const headers: Record<string, string> = { ...extra };
  if (authorization !== undefined) headers.authorization = authorization;
  if (op.body !== undefined) headers['content-type'] = 'application/json';
  return (await t.app.inject({
    method: op.methode as 'GET',
    url: op.url,
    headers,
    payload: op.body === undefined ? undefined : JSON.stringify(op.body),
  })) as unknown as Antwoord;
}

/** Totals that any charge or usage would change, over the whole database. */
async function tellers(t: TestApp) {
  const [ledger, usage, som] = await Promise.all([
    t.db.prisma.ledgerEntry.count(),
    t.db.prisma.usageRecord.count(),
    t.db.prisma.account.aggregate({ _sum: { credits: true } }),
  ]);
  return { ledger, usage, credits: som._sum.credits ?? 0 };
}

/** Run fn and assert it charged nothing and wrote no usage anywhere. */
export async function zonderKosten<T>(t: TestApp, fn: () => Promise<T>): Promise<T> {
  const voor = await tellers(t);
  const r = await fn();
  expect(await tellers(t), 'geweigerde verzoeken mogen niets afschrijven of als verbruik vastleggen').toEqual(voor);
  return r;
}

export interface OngeldigeSleutel {
  naam: string;
  /** The full Authorization header; undefined: no header at all. */
  authorization?: string;
  /** A query string added to the URL (a key there must not count). */
  query?: string;
}

/**
 * Every kind of key the service must refuse with 401: missing, malformed, wrong checksum, unknown
 * but well-formed, revoked, of a deleted account, expired.
 */
export async function ongeldigeSleutels(t: TestApp): Promise<OngeldigeSleutel[]> {
  const { accountId, key: geldig } = await t.klant(50);

  const ingetrokken = await t.key(accountId);
  await t.db.prisma.apiKey.update({ where: { hash: sleutelHash(ingetrokken) }, data: { ingetrokkenOp: t.clock.now } });

  const verlopen = await t.key(accountId);
  await t.db.prisma.apiKey.update({ where: { hash: sleutelHash(verlopen) }, data: { verlooptOp: new Date(t.clock.now.getTime() - 1000) } });

  // A key whose account was deleted (another customer's, long gone): the key row goes with it.
  const weg = await t.klant(10);
  await t.db.prisma.account.delete({ where: { id: weg.accountId } });
  expect(await t.db.prisma.apiKey.count({ where: { hash: sleutelHash(weg.key) } })).toBe(0);

  const andereChecksum = `${geldig.slice(0, -6)}${geldig.slice(-6) === '000000' ? '000001' : '000000'}`;
  return [
    { naam: 'geen sleutel' },
    { naam: 'leeg', authorization: '' },
    { naam: 'alleen Bearer', authorization: 'Bearer' },
    { naam: 'Bearer met spatie', authorization: 'Bearer ' },
    { naam: 'Basic', authorization: 'Basic Zm9vOmJhcg==' },
    { naam: 'zonder schema', authorization: geldig },
    { naam: 'ander voorvoegsel', authorization: `Bearer sk_${geldig.slice(4)}` },
    { naam: 'te kort', authorization: `Bearer ${geldig.slice(0, -1)}` },
    { naam: 'te lang', authorization: `Bearer ${geldig}x` },
    { naam: 'verkeerde checksum', authorization: `Bearer ${andereChecksum}` },
    { naam: 'twee sleutels', authorization: `Bearer ${geldig} ${geldig}` },
    { naam: 'onbekend, goed gevormd', authorization: `Bearer ${genereerSleutel()}` },
    { naam: 'ingetrokken', authorization: `Bearer ${ingetrokken}` },
    { naam: 'account verwijderd', authorization: `Bearer ${weg.key}` },
    { naam: 'verlopen', authorization: `Bearer ${verlopen}` },
    { naam: 'sleutel in de query', query: `key=${geldig}&api_key=${geldig}&access_token=${geldig}` },
  ];
}

/** 401 with the contract's body and WWW-Authenticate for every invalid key on every operation. */
export async function controleerOngeldigeSleutels(t: TestApp, ops: Operatie[]): Promise<number> {
  const sleutels = await ongeldigeSleutels(t);
  let n = 0;
  await zonderKosten(t, async () => {
    for (const op of ops) {
      for (const s of sleutels) {
        const url = s.query ? `${op.url}?${s.query}` : op.url;
        const res = await roep(t, { ...op, url }, s.authorization);
        const label = `${op.methode} ${op.pad} met ${s.naam}`;
        expectFout(res, 401, label);
        expect(res.json(), label).toEqual(ONGELDIGE_SLEUTEL);
        expect(res.headers['www-authenticate'], label).toBe('Bearer');
        n++;
      }
    }
  });
  return n;
}

/**
 * A management key: 403 on every insight route, 200 on whoami. An insight key without the right
 * `inzicht:lezen`: 403 on every insight route, 200 on whoami (any valid key may ask who it is).
 */
export async function controleerFamilieEnRechten(t: TestApp, ops: Operatie[]): Promise<number> {
  const acc = await t.account(500);
  const beheer = await t.key(acc.id, { familie: 'beheer' });
  const zonderRecht = await t.key(acc.id);
  await t.db.prisma.apiKey.update({ where: { hash: sleutelHash(zonderRecht) }, data: { rechten: [] } });
  // Another right, but not the one that counts.
  const anderRecht = await t.key(acc.id);
  await t.db.prisma.apiKey.update({ where: { hash: sleutelHash(anderRecht) }, data: { rechten: ['inzicht:schrijven', 'projecten:lezen'] } });
  // The family decides on its own: a management key that somehow carries `inzicht:lezen` is still refused.
  const beheerMetRecht = await t.key(acc.id, { familie: 'beheer' });
  await t.db.prisma.apiKey.update({ where: { hash: sleutelHash(beheerMetRecht) }, data: { rechten: ['inzicht:lezen', 'projecten:lezen'] } });

  let n = 0;
  await zonderKosten(t, async () => {
    for (const op of ops) {
      for (const [naam, key] of [['beheer', beheer], ['beheer met inzicht:lezen', beheerMetRecht], ['zonder recht', zonderRecht], ['ander recht', anderRecht]] as const) {
        const res = await roep(t, op, `Bearer ${key}`);
        const label = `${op.methode} ${op.pad} met sleutel ${naam}`;
        if (op.inzicht) {
          expectFout(res, 403, label);
          expect(res.headers['www-authenticate'], `${label}: 403 is geen authenticatieprobleem`).toBeUndefined();
        } else if (op.pad === '/whoami') {
          expect(res.statusCode, `${label} (${res.body})`).toBe(200);
        }
        n++;
      }
    }
  });
  const whoami = await roep(t, { methode: 'GET', url: '/api/v1/whoami' }, `Bearer ${beheer}`);
  expect(whoami.json().data.familie).toBe('beheer');
  return n;
}

/** The management product's paths: an insight key is refused with 403 (and nothing is charged). */
export async function controleerBeheerApi(t: TestApp): Promise<number> {
  const { key } = await t.klant(50);
  const paden = ['/api/v1/projecten', '/api/v1/projecten/123', '/api/v1/projecten/123/taken'];
  let n = 0;
  await zonderKosten(t, async () => {
    for (const url of paden) {
      for (const methode of ['GET', 'POST', 'DELETE']) {
        const res = await roep(t, { methode, url, body: methode === 'POST' ? { naam: 'x' } : undefined }, `Bearer ${key}`);
        expectFout(res, 403, `${methode} ${url}`);
        n++;
      }
    }
  });
  return n;
}
