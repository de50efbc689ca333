import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { appRouter } from '../src/procedures/router.ts';

type Responses = Record<string, { description?: string; content?: Record<string, { schema?: { $ref?: string } }>; headers?: Record<string, unknown> }>;
interface Operation {
  security?: Record<string, unknown[]>[];
  parameters?: { in: string; name: string }[];
  responses: Responses;
  requestBody?: unknown;
}
type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, any>; securitySchemes?: Record<string, any>; responses?: Responses };
  info: { license?: unknown };
  externalDocs: { url: string };
  tags: { name: string }[];
};

/** The REST surface of decisions section 1 (paths relative to /api/v1), method per path. */
const SECTIE_1: [string, string][] = [
  ['get', '/whoami'],
  ['post', '/inzicht/waarde'],
  ['post', '/inzicht/adres'],
  ['post', '/inzicht/woz'],
  ['post', '/inzicht/energielabel'],
  ['post', '/inzicht/woningtype'],
  ['post', '/inzicht/invloeden'],
  ['post', '/webhooks'],
  ['get', '/webhooks'],
  ['delete', '/webhooks/{}'],
  ['post', '/webhooks/{}/test'],
  ['get', '/webhooks/{}/afleveringen'],
  ['get', '/verbruik'],
];
/** Built and required today. */
const GEBOUWD = ['get /whoami', 'post /inzicht/adres', 'post /inzicht/woz', 'post /inzicht/energielabel', 'post /inzicht/woningtype', 'post /inzicht/invloeden'];
const LOOKUP_PADEN = ['/inzicht/adres', '/inzicht/woz', '/inzicht/energielabel', '/inzicht/woningtype', '/inzicht/invloeden'];

const sjabloon = (pad: string) => pad.replace(/\{[^}]+\}/g, '{}');

/** (method, path) of every procedure the router exposes over REST. */
function routerOperaties(): { methode: string; pad: string; errorResponses?: Record<string, string> }[] {
  return Object.values(appRouter._def.procedures as unknown as Record<string, { _def: { meta?: { openapi?: { method: string; path: string; errorResponses?: Record<string, string> } } } }>)
    .map((p) => p._def.meta?.openapi)
    .filter((o): o is NonNullable<typeof o> => !!o)
    .map((o) => ({ methode: o.method.toLowerCase(), pad: o.path, errorResponses: o.errorResponses }));
}

let t: TestApp;
let doc: Doc;
beforeAll(async () => {
  t = await createTestApp();
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  doc = res.json();
});
afterAll(async () => t?.close());

describe(`OpenAPI document and /docs (${dialect})`, () => {

  /** A response by reference (408, 431: defined once under components.responses) read as if written out. */
  const los = (r: Responses[string] & { $ref?: string }) => (r.$ref ? doc.components.responses?.[r.$ref.replace('#/components/responses/', '')] ?? {} : r);
  const operaties = () =>
    Object.entries(doc.paths).flatMap(([pad, item]) =>
      Object.entries(item).map(([methode, op]) => ({ pad, methode, op: { ...op, responses: Object.fromEntries(Object.entries(op.responses).map(([s, r]) => [s, los(r)])) } })),
    );

  it('is served without a key and validates as OpenAPI 3.1', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('has every path of decisions section 1 that the router serves, and every router operation', () => {
    const inDoc = new Set(operaties().map((o) => `${o.methode} ${sjabloon(o.pad)}`));
    const inRouter = new Set(routerOperaties().map((o) => `${o.methode} ${sjabloon(o.pad)}`));
    for (const g of GEBOUWD) {
      expect(inRouter, g).toContain(g);
      expect(inDoc, g).toContain(g);
    }
    for (const [m, p] of SECTIE_1) if (inRouter.has(`${m} ${p}`)) expect(inDoc, `${m} ${p}`).toContain(`${m} ${p}`);
    for (const r of inRouter) expect(inDoc, r).toContain(r);
  });

  it('every 4xx/5xx response of every operation is the Fout schema; no error.* schemas remain', () => {
    expect(doc.components.schemas.Fout).toMatchObject({
      type: 'object',
      properties: { fout: { type: 'string' } },
      required: ['fout'],
      additionalProperties: false,
    });
    for (const { pad, methode, op } of operaties()) {
      const fouten = Object.entries(op.responses).filter(([s]) => Number(s) >= 400);
      expect(fouten.length, `${methode} ${pad}`).toBeGreaterThan(0);
      for (const [status, resp] of fouten) {
        expect(resp.content?.['application/json'].schema, `${methode} ${pad} ${status}`).toStrictEqual({ $ref: '#/components/schemas/Fout' });
        expect(Object.keys(resp.content ?? {}), `${methode} ${pad} ${status}`).toEqual(['application/json']);
      }
    }
    expect(Object.keys(doc.components.schemas).filter((n) => n.startsWith('error.'))).toEqual([]);
  });

  it('every answer documents the cost and request-id headers, every operation 405, 408 and 431 (POST also 413/415), examples from the demo', () => {
    for (const { pad, methode, op } of operaties()) {
      expect(Object.keys(op.responses), `${methode} ${pad}`).toEqual(expect.arrayContaining(methode === 'post' ? ['405', '408', '413', '415', '431'] : ['405', '408', '431']));
      for (const [status, resp] of Object.entries(op.responses) as [string, { headers?: Record<string, unknown>; content?: Record<string, { examples?: unknown }> }][]) {
        // 408 and 431 are answered before the request is read: no request id yet.
        const voorHetLezen = ['408', '431'].includes(status);
        expect(Object.keys(resp.headers ?? {}), `${methode} ${pad} ${status}`).toEqual(expect.arrayContaining(voorHetLezen ? ['Insight-Gefactureerd-Cent'] : ['Insight-Gefactureerd-Cent', 'X-Request-Id']));
        if (!['401', '405', '413', '415'].includes(status) && !voorHetLezen) expect(Object.keys(resp.headers ?? {}), `${methode} ${pad} ${status}`).toContain('Insight-Saldo-Credits');
      }
      expect((op.responses['200'].content as Record<string, { examples?: unknown }> | undefined)?.['application/json'].examples, `${methode} ${pad}`).toBeDefined();
      // A POST without a body (webhook test, rotation, replay: the path says it all) has no body to show.
      if (methode === 'post' && op.requestBody) expect((op.requestBody as { content: Record<string, { examples?: unknown }> }).content['application/json'].examples, `${methode} ${pad}`).toBeDefined();
    }
    expect(JSON.stringify(doc)).not.toContain('9007199254740991');
    expect(doc.externalDocs.url).toMatch(/^https?:\/\//);
    expect(doc.tags.map((t: { name: string }) => t.name).sort()).toEqual(['account', 'inzicht', 'webhooks']);
    expect(doc.info.license).toBeDefined();
    expect(Object.keys(doc.components.schemas.Marktwaarde.properties.meta.properties)).toEqual(expect.arrayContaining(['model_versie', 'data_vintage', 'index_bron', 'bron']));
    expect(JSON.stringify(doc)).not.toMatch(/#\/components\/schemas\/error\./);
  });

  it('every protected operation documents 401 and 429 (all REST paths are rate limited)', () => {
    for (const { pad, methode, op } of operaties()) {
      if (!op.security?.length) continue;
      expect(Object.keys(op.responses), `${methode} ${pad}`).toEqual(expect.arrayContaining(['401', '429']));
    }
  });

  it('a real answer\'s RateLimit headers are declared for its status: 200, 400, 402, 403, 404, 409 of a lookup, whoami', async () => {
    const { key, accountId } = await t.klant(0);
    const beheer = await t.key(accountId, { familie: 'beheer' });
    const rijk = (await t.klant(100)).key;
    const ik = { 'idempotency-key': `rl-${Date.now()}` };
    const vraag = (k: string, url: string, payload?: object, headers: Record<string, string> = {}) =>
      t.app.inject({ method: payload ? 'POST' : 'GET', url: `/api/v1${url}`, headers: { authorization: `Bearer ${k}`, ...headers }, payload });
    const gevallen = [
      ['get', '/whoami', await vraag(key, '/whoami')],
      ['post', '/inzicht/woz', await vraag(rijk, '/inzicht/woz', { adres: { postcode: 'x', huisnummer: '1' } })],
      ['post', '/inzicht/woz', await vraag(key, '/inzicht/woz', { adres: { postcode: '9999ZZ', huisnummer: '1' } })],
      ['post', '/inzicht/woz', await vraag(beheer, '/inzicht/woz', { adres: { postcode: '9999ZZ', huisnummer: '1' } })],
      ['post', '/inzicht/woz', await vraag(rijk, '/inzicht/woz', { adres: { postcode: '9999ZZ', huisnummer: '1' } }, ik)],
      ['post', '/inzicht/woz', await vraag(rijk, '/inzicht/woz', { adres: { postcode: '9999ZZ', huisnummer: '2' } }, ik)],
    ] as const;
    const gezien = new Set<string>();
    for (const [methode, pad, res] of gevallen) {
      const status = String(res.statusCode);
      gezien.add(status);
      const verklaard = Object.keys(operaties().find((o) => o.pad === pad && o.methode === methode)?.op.responses[status]?.headers ?? {});
      for (const h of ['RateLimit', 'RateLimit-Policy']) if (res.headers[h.toLowerCase()] !== undefined) expect(verklaard, `${methode} ${pad} ${status}: ${h}`).toContain(h);
    }
    expect([...gezien].sort()).toEqual(['200', '400', '402', '403', '404', '409']);
  });

  it('every operation documents 503 (with Retry-After); every one that takes input documents 400 and answers an unknown field with it', async () => {
    const { key } = await t.klant(100);
    for (const { pad, methode, op } of operaties()) {
      const label = `${methode} ${pad}`;
      expect(Object.keys(op.responses), label).toContain('503');
      expect(op.responses['503'].headers?.['Retry-After'], label).toBeDefined();
      if (label === 'get /whoami') {
        expect(Object.keys(op.responses), label).not.toContain('400');
        continue;
      }
      expect(Object.keys(op.responses), label).toContain('400');
      const url = `/api/v1${pad.replace(/\{[^}]+\}/g, '0190a000-0000-7000-8000-000000000000')}`;
      const headers = { authorization: `Bearer ${key}` };
      const res = ['get', 'delete'].includes(methode)
        ? await t.app.inject({ method: methode.toUpperCase() as 'GET', url: `${url}?onbekend=1`, headers })
        : await t.app.inject({ method: methode.toUpperCase() as 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, payload: '{"onbekend":1}' });
      expect(res.statusCode, `${label}: ${res.body}`).toBe(400);
      expect(res.json().fout, label).toMatch(/^Ongeldige invoer: (.+: )?[a-z]/);
    }
  });

  it("error descriptions are the operation's own (Dutch), not the generator's shared English defaults", () => {
    const engels = /Authorization not provided|Insufficient access|Invalid input data|Internal server error|Not found/;
    for (const { pad, methode, op } of operaties()) {
      for (const [status, resp] of Object.entries(op.responses)) {
        if (Number(status) >= 400) expect(resp.description, `${methode} ${pad} ${status}`).not.toMatch(engels);
      }
    }
    for (const r of routerOperaties()) {
      const op = doc.paths[r.pad]?.[r.methode];
      for (const [status, beschrijving] of Object.entries(r.errorResponses ?? {})) {
        expect(op?.responses[status]?.description, `${r.methode} ${r.pad} ${status}`).toBe(beschrijving);
      }
    }
  });

  it('the lookups document Bearer security, the Idempotency-Key header, RateLimit headers and their errors', () => {
    expect(doc.components.securitySchemes?.Bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const pad of LOOKUP_PADEN) {
      const op = doc.paths[pad]?.post;
      expect(op, pad).toBeDefined();
      expect(op.security, pad).toEqual([{ Bearer: [] }]);
      expect(op.parameters?.some((p) => p.in === 'header' && p.name === 'Idempotency-Key'), pad).toBe(true);
      expect(Object.keys(op.responses['200'].headers ?? {}), pad).toEqual(expect.arrayContaining(['RateLimit', 'RateLimit-Policy']));
      expect(Object.keys(op.responses), pad).toEqual(expect.arrayContaining(['200', '400', '401', '402', '403', '404', '409', '429']));
    }
  });

  it('its texts stand on their own: a customer reading /docs has no README', () => {
    expect(JSON.stringify(doc)).not.toMatch(/README|\.\.\/shared/);
  });

  it('the request address takes huisnummer as a string; the answer gives it as an integer', () => {
    const invoer = doc.components.schemas.AdresInvoer;
    expect(invoer.properties.postcode.type).toBe('string');
    expect(invoer.properties.huisnummer.type).toBe('string');
    expect(invoer.required).toEqual(['postcode', 'huisnummer']);
    expect(invoer.additionalProperties).toBe(false);
    expect(doc.components.schemas.Adres.properties.huisnummer.type).toBe('integer');
    expect(doc.components.schemas.Adres.required).toEqual(expect.arrayContaining(['weergave', 'postcode', 'huisnummer', 'toevoeging']));
  });

  it('GET /docs answers HTML without a key', async () => {
    let res = await t.app.inject({ method: 'GET', url: '/docs' });
    for (let i = 0; i < 3 && res.statusCode >= 300 && res.statusCode < 400; i++) {
      const naar = new URL(String(res.headers.location), 'http://localhost/docs');
      res = await t.app.inject({ method: 'GET', url: naar.pathname + naar.search });
    }
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
    expect(res.body).toMatch(/<html/i);
  });
});

/**
 * The document does not depend on the database: one snapshot, under a name without the dialect, written
 * and checked by the PGlite project only (two projects writing one .snap file overwrite each other).
 */
describe.skipIf(dialect !== 'pglite')('OpenAPI document snapshot', () => {
  it('matches the committed snapshot (contract changes show up in review)', () => {
    expect(doc).toMatchSnapshot();
  });
});
