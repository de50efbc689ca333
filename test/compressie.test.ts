import http from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync, zstdDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';
import { aanmelden } from './app/trpc-hulp.ts';
import { datumAmsterdam } from '../src/domain/begrippen.ts';

/**
 * Compression over real HTTP, as clients send it: every answer above @fastify/compress's 1 KiB threshold
 * must arrive whole whatever the client accepts — the decoded body equals the uncompressed answer and a
 * Content-Length, when sent, counts the bytes on the wire. The raw bytes are read with node:http (it
 * decodes nothing), so an empty or truncated compressed answer cannot hide behind a lenient client.
 */
const ENCODINGS = ['br', 'gzip', 'gzip, deflate, br, zstd', ''] as const;
const DREMPEL = 1024;

interface Ruw {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: Buffer;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function verzoek(url: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Ruw> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: o.method ?? 'GET', headers: o.headers, agent }, (res) => {
      const delen: Buffer[] = [];
      res.on('data', (d: Buffer) => delen.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(delen) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

function decodeer(r: Ruw): string {
  const enc = String(r.headers['content-encoding'] ?? 'identity');
  const uit = { br: brotliDecompressSync, gzip: gunzipSync, deflate: inflateSync, zstd: zstdDecompressSync, identity: (b: Buffer) => b }[enc];
  if (!uit) throw new Error(`onbekende Content-Encoding ${enc}`);
  return uit(r.bytes).toString('utf8');
}

/** What every answer must satisfy on the wire, whatever its encoding. */
function expectHeel(r: Ruw, label: string): string {
  const lengte = r.headers['content-length'];
  if (lengte !== undefined) expect(Number(lengte), `${label}: Content-Length tegen de verzonden bytes`).toBe(r.bytes.length);
  expect(r.bytes.length, `${label}: lege body`).toBeGreaterThan(0);
  return decodeer(r);
}

describe(`compressed answers over real HTTP (${dialect})`, () => {
  let t: TestApp;
  let base: string;
  let key: string;
  let webhookId: string;
  let body: string;

  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '100000', RATE_LIMIT_MCP_TOOLS_PER_MIN: '100000' });
    t.clock.now = new Date();
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    ({ key } = await t.klant(100_000));
    const adres = await maakVolledigAdres(t.db.prisma);
    body = JSON.stringify(adresBody(adres));
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const w = await verzoek(`${base}/api/v1/webhooks`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ url: 'http://127.0.0.1:9/ontvanger', events: ['inzicht.voltooid', 'inzicht.mislukt', 'saldo.laag'], omschrijving: 'compressie' }),
    });
    expect(w.status, w.bytes.toString()).toBe(200);
    webhookId = JSON.parse(w.bytes.toString()).data.id;
    // Usage and webhook deliveries enough for lists well above the threshold (no delivery worker runs:
    // the deliveries stay queued, which is all the list needs).
    for (let i = 0; i < 30; i++) {
      const r = await verzoek(`${base}/api/v1/inzicht/${i % 3 === 0 ? 'woz' : 'adres'}`, { method: 'POST', headers: auth, body: i % 5 === 0 ? JSON.stringify({ adres: { postcode: '9999ZZ', huisnummer: '1' } }) : body });
      expect([200, 404]).toContain(r.status);
    }
  });
  afterAll(async () => {
    agent.destroy();
    await t?.close();
  });

  it('every REST operation of the served OpenAPI document whose answer is above the threshold arrives whole in every encoding', async () => {
    const doc = JSON.parse((await verzoek(`${base}/api/v1/openapi.json`)).bytes.toString()) as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
    const groot: string[] = [];
    for (const [pad, item] of Object.entries(doc.paths)) {
      for (const methode of ['get', 'post']) {
        const op = item[methode];
        // Reads and the lookups answer the same twice; a mutation's answer is not comparable with itself.
        if (!op || (methode === 'post' && !pad.startsWith('/inzicht/'))) continue;
        const url = `${base}/api/v1${pad.replace('{id}', webhookId)}`;
        const headers: Record<string, string> = { authorization: `Bearer ${key}`, ...(op.requestBody ? { 'content-type': 'application/json' } : {}) };
        const o = { method: methode.toUpperCase(), body: op.requestBody ? body : undefined };
        const referentie = await verzoek(url, { ...o, headers });
        // The value lookup may refuse (no sales held here): the same refusal must then arrive each time.
        expect(referentie.status === 200 || pad === '/inzicht/waarde', `${methode} ${pad}: ${referentie.bytes}`).toBe(true);
        expect(referentie.headers['content-encoding'], pad).toBeUndefined();
        const verwacht = expectHeel(referentie, `${pad} zonder Accept-Encoding`);
        if (referentie.bytes.length <= DREMPEL) continue;
        groot.push(pad);
        for (const enc of ENCODINGS) {
          const r = await verzoek(url, { ...o, headers: { ...headers, ...(enc ? { 'accept-encoding': enc } : {}) } });
          const label = `${methode} ${pad}, Accept-Encoding "${enc}"`;
          expect(r.status, label).toBe(referentie.status);
          if (enc) expect(r.headers['content-encoding'], label).toBe(enc === 'gzip' ? 'gzip' : 'br');
          expect(JSON.parse(expectHeel(r, label)), label).toEqual(JSON.parse(verwacht));
        }
      }
    }
    // The lists this bug emptied are among them (the usage list, the endpoints, their deliveries).
    expect(groot).toEqual(expect.arrayContaining(['/verbruik', '/webhooks/{id}/afleveringen']));
  });

  it('the OpenAPI document arrives whole in every encoding', async () => {
    const verwacht = expectHeel(await verzoek(`${base}/api/v1/openapi.json`), 'openapi.json');
    for (const enc of ENCODINGS) {
      const r = await verzoek(`${base}/api/v1/openapi.json`, { headers: enc ? { 'accept-encoding': enc } : {} });
      expect(expectHeel(r, `openapi.json "${enc}"`)).toBe(verwacht);
    }
  });

  it('the docs script honours q-values (q=0 refuses an encoding) and keeps the Vary it already had', async () => {
    const pad = `${base}/docs/js/scalar.js`;
    const origineel = expectHeel(await verzoek(pad, { headers: { 'accept-encoding': 'identity' } }), 'identity');
    const geweigerd = await verzoek(pad, { headers: { 'accept-encoding': 'identity, br;q=0, gzip;q=0' } });
    expect(geweigerd.headers['content-encoding']).toBeUndefined();
    expect(geweigerd.bytes.toString('utf8')).toBe(origineel);
    const gzip = await verzoek(pad, { headers: { 'accept-encoding': 'br;q=0, gzip', origin: 'https://voorbeeld.nl' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(expectHeel(gzip, 'gzip')).toBe(origineel);
    const voorkeur = await verzoek(pad, { headers: { 'accept-encoding': 'gzip;q=1, br;q=0.5' } });
    expect(voorkeur.headers['content-encoding']).toBe('gzip');
    expect(String(gzip.headers.vary).split(/,\s*/)).toEqual(['Origin', 'Accept-Encoding']);
  });

  it('an MCP answer above the threshold (tools/list) arrives whole in every encoding', async () => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
    const lijst = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const lees = (tekst: string) => {
      // A stateless MCP answer is JSON or one SSE event carrying it.
      const json = tekst.startsWith('{') ? tekst : tekst.split('\n').find((l) => l.startsWith('data: '))?.slice(6) ?? '';
      return JSON.parse(json) as { result: { tools: unknown[] } };
    };
    const verwacht = lees(expectHeel(await verzoek(`${base}/mcp`, { method: 'POST', headers, body: lijst }), 'mcp'));
    expect(verwacht.result.tools.length).toBeGreaterThan(0);
    for (const enc of ENCODINGS) {
      const r = await verzoek(`${base}/mcp`, { method: 'POST', headers: { ...headers, ...(enc ? { 'accept-encoding': enc } : {}) }, body: lijst });
      expect(r.status).toBe(200);
      const label = `mcp "${enc}"`;
      expect(Buffer.byteLength(expectHeel(r, label)), label).toBeGreaterThan(DREMPEL);
      expect(lees(expectHeel(r, label)), label).toEqual(verwacht);
    }
  });

  it('a web-app (/trpc) answer above the threshold arrives whole in every encoding', async () => {
    const s = await aanmelden(t);
    const eigen = await t.key(s.accountId);
    const auth = { authorization: `Bearer ${eigen}`, 'content-type': 'application/json' };
    await t.db.prisma.account.update({ where: { id: s.accountId }, data: { credits: 1000 } });
    for (let i = 0; i < 20; i++) await verzoek(`${base}/api/v1/inzicht/adres`, { method: 'POST', headers: auth, body });
    // The usage list's days are Amsterdam days (between 23:00 and 24:00 UTC in winter the UTC date is a day behind).
    const dag = datumAmsterdam(t.clock.now);
    const url = `${base}/trpc/verbruik.lijst?input=${encodeURIComponent(JSON.stringify({ van: dag, tot: dag }))}`;
    const headers = { cookie: s.cookie };
    const verwacht = expectHeel(await verzoek(url, { headers }), 'trpc');
    expect(Buffer.byteLength(verwacht)).toBeGreaterThan(DREMPEL);
    for (const enc of ENCODINGS) {
      const r = await verzoek(url, { headers: { ...headers, ...(enc ? { 'accept-encoding': enc } : {}) } });
      expect(r.status).toBe(200);
      expect(JSON.parse(expectHeel(r, `trpc "${enc}"`))).toEqual(JSON.parse(verwacht));
    }
  });

  it("Node's fetch (Accept-Encoding: gzip, deflate, br by default) gets the whole usage list", async () => {
    const viaFetch = await fetch(`${base}/api/v1/verbruik`, { headers: { authorization: `Bearer ${key}` } });
    expect(viaFetch.status).toBe(200);
    const tekst = await viaFetch.text();
    expect(tekst.length).toBeGreaterThan(DREMPEL);
    expect(JSON.parse(tekst).data.length).toBeGreaterThan(10);
  });
});
