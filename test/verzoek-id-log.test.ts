import { Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/env.ts';
import type { Services } from '../src/core/context.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { genereerSleutel } from '../src/domain/keys/format.ts';
import { maakModelHouder } from '../src/domain/valuation/houder.ts';
import { createLogger } from '../src/logging.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';
import { vrijePoort } from './support/server.ts';
import { maakVerkopen } from './support/verkopen.ts';

/**
 * Issue 12: structured logs keep the request id on every line, REST and MCP. The log is captured (the
 * app's own pino logger, level debug); requests go one at a time, each through a fetch that notes the
 * X-Request-Id of its answer, so every line written between sending a request and its answer belongs to
 * it — and must carry exactly that id as `reqId`: Fastify's own lines, the gateways' (REST, MCP), and
 * those of core and domain code that logs through the services' logger (the model build a waarde call
 * starts, an outage noticed by a request).
 */
interface Venster {
  wat: string;
  ids: string[];
  regels: Record<string, unknown>[];
  /** Requests sent in this window whose answer has not arrived yet. */
  lopend: number;
}

function vangLog() {
  const regels: Record<string, unknown>[] = [];
  const config = loadConfig({}, { LOG_LEVEL: 'debug', DEMO_SEED: 'false', RATE_LIMIT_REST_PER_MIN: '10000', RATE_LIMIT_MCP_TOOLS_PER_MIN: '10000' });
  const log = createLogger(config, new Writable({ write: (c, _e, cb) => (regels.push(JSON.parse(String(c))), cb()) }));
  const vensters: Venster[] = [];
  let huidig: Venster | undefined;
  /** Ids of requests sent between windows (by the MCP client in the background). */
  const tussendoor: string[] = [];
  /** A fetch that notes each answer's X-Request-Id in the window it was sent in (the MCP client sends some in the background). */
  const meetFetch: typeof fetch = async (input, init) => {
    const v = huidig;
    if (v) v.lopend++;
    try {
      const r = await fetch(input, init);
      const id = r.headers.get('x-request-id');
      if (id) (v ? v.ids : tussendoor).push(id);
      return r;
    } finally {
      if (v) v.lopend--;
    }
  };
  /** Run `stap` as one window: the lines logged meanwhile and the request ids answered. */
  async function venster<T>(wat: string, stap: () => Promise<T>): Promise<T> {
    const begin = regels.length;
    const v: Venster = { wat, ids: [], regels: [], lopend: 0 };
    huidig = v;
    try {
      return await stap();
    } finally {
      // Until every request sent in the window (also one the MCP client starts right after `stap`) is
      // answered; then a moment for the onResponse line (pino writes to the Writable synchronously).
      await new Promise((r) => setTimeout(r, 20));
      for (let n = 0; n < 500 && v.lopend > 0; n++) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 20));
      v.regels = regels.slice(begin);
      vensters.push(v);
      huidig = undefined;
    }
  }
  /**
   * Every line in a window carries the id of a request of that window (one of them, if several); a
   * line of a request the MCP client sent in the background may land in the next window.
   */
  function controleer() {
    const zonder: string[] = [];
    let gezien = 0;
    vensters.forEach((v, i) => {
      expect(v.ids.length, v.wat).toBeGreaterThan(0);
      const toegestaan = new Set([...v.ids, ...(vensters[i - 1]?.ids ?? []), ...tussendoor]);
      for (const r of v.regels) {
        gezien++;
        if (typeof r.reqId !== 'string' || !toegestaan.has(r.reqId)) zonder.push(`${v.wat}: ${JSON.stringify(r).slice(0, 300)}`);
      }
    });
    expect(zonder).toEqual([]);
    return gezien;
  }
  return { config, log, regels, vensters, venster, meetFetch, controleer };
}

async function mcp(base: string, key: string, f: typeof fetch): Promise<Client> {
  const c = new Client({ name: 'test', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } }, fetch: f }));
  return c;
}

describe(`request id on every log line (${dialect})`, () => {
  const v = vangLog();
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ LOG_LEVEL: 'debug', RATE_LIMIT_REST_PER_MIN: '10000', RATE_LIMIT_MCP_TOOLS_PER_MIN: '10000' }, { log: v.log });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t?.close());

  it('REST and MCP: every line written while serving a request carries that request id, core and gateway lines included', async () => {
    const { key } = await t.klant(20);
    const a = await maakVolledigAdres(t.db.prisma);
    const rest = (pad: string, init: RequestInit = {}) =>
      v.meetFetch(`${base}${pad}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers ?? {}) } }).then((r) => r.text());
    await v.venster('whoami', () => rest('/api/v1/whoami'));
    await v.venster('woz 200', () => rest('/api/v1/inzicht/woz', { method: 'POST', body: JSON.stringify(adresBody(a)) }));
    // The first waarde call builds the valuation model (core logs "waardemodel gebouwd" meanwhile); 18 credits.
    await v.venster('waarde (modelbouw)', () => rest('/api/v1/inzicht/waarde', { method: 'POST', body: JSON.stringify(adresBody(a)) }));
    await v.venster('woz 402', () => rest('/api/v1/inzicht/woz', { method: 'POST', body: JSON.stringify(adresBody(a)) }));
    await v.venster('ongeldige JSON', () => rest('/api/v1/inzicht/woz', { method: 'POST', body: '{"adres":' }));
    await v.venster('onbekend pad', () => rest('/api/v1/bestaat-niet'));
    await v.venster('x-request-id van de klant', () => rest('/api/v1/whoami', { headers: { 'x-request-id': 'klant-id-123' } }));
    const { key: mcpKey } = await t.klant(100);
    const c = await v.venster('mcp initialize', () => mcp(base, mcpKey, v.meetFetch));
    await v.venster('mcp tools/list', () => c.listTools());
    await v.venster('mcp woz', () => c.callTool({ name: 'woz', arguments: { postcode: a.postcode, huisnummer: a.huisnummer } }));
    await v.venster('mcp property_value', () => c.callTool({ name: 'property_value', arguments: { postcode: a.postcode, huisnummer: a.huisnummer } }));
    await v.venster('mcp onbekend argument', () => c.callTool({ name: 'woz', arguments: { postcode: a.postcode, huisnummer: a.huisnummer, extra: 1 } }));
    await c.close();

    const gezien = v.controleer();
    expect(v.vensters.find((x) => x.wat === 'x-request-id van de klant')?.ids).toEqual(['klant-id-123']);
    // Core's model-build line was among them, with the id of the request that started the build.
    expect(v.regels.some((r) => r.msg === 'waardemodel gebouwd' && typeof r.reqId === 'string')).toBe(true);
    // One access line per request (src/logging.ts VerzoekLog) plus the core's and gateways' own lines.
    expect(gezien).toBeGreaterThan(12);
  });
});

describe('request id on the outage lines core writes (PostgreSQL URL to a closed port)', () => {
  const v = vangLog();
  let db: Database;
  let app: FastifyInstance;
  let base: string;
  beforeAll(async () => {
    db = await openDatabase({ databaseUrl: `postgresql://postgres@127.0.0.1:${await vrijePoort()}/weg`, dataDir: '', verbindTimeoutMs: 1000 });
    const services: Services = { db: db.prisma, config: v.config, now: () => new Date(), log: v.log, waardemodel: maakModelHouder(db.prisma, v.log, { controleMs: 0 }) };
    app = await buildApp({ services });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
  });

  it('the "database onbereikbaar" line of the request that noticed it carries its id; REST and MCP answer 503', async () => {
    // Well-formed, so the lookup reaches the database (a malformed key is refused before it).
    const key = genereerSleutel();
    // MCP first: the line that reports the outage is written while serving it.
    await v.venster('mcp tijdens storing', async () => {
      const m = await v.meetFetch(`${base}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(m.status).toBe(503);
      await m.text();
    });
    const r = await v.venster('whoami tijdens storing', () => v.meetFetch(`${base}/api/v1/whoami`, { headers: { authorization: `Bearer ${key}` } }));
    expect(r.status).toBe(503);
    v.controleer();
    const storing = v.regels.find((x) => /database onbereikbaar/.test(String(x.msg)));
    expect(storing?.reqId).toBe(v.vensters[0].ids[0]);
  });
});

// Session 28 (operations review): a rebuild a request only sets going (new sales seen by the background vintage
// check) runs after its answer; its lines carried that request's id, so a failed rebuild was blamed on it.
describe(`no request id on the lines of a background model rebuild (${dialect})`, () => {
  const v = vangLog();
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ LOG_LEVEL: 'debug', RATE_LIMIT_REST_PER_MIN: '10000' }, { log: v.log });
  });
  afterAll(async () => t?.close());

  it('the rebuild after new sales logs "waardemodel gebouwd" without the id of the request that noticed them', async () => {
    const { key } = await t.klant(100);
    const a = await maakVolledigAdres(t.db.prisma);
    const waarde = () => t.app.inject({ method: 'POST', url: '/api/v1/inzicht/waarde', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: adresBody(a) });
    const gebouwd = () => v.regels.filter((r) => r.msg === 'waardemodel gebouwd');
    await waarde();
    expect(gebouwd()).toHaveLength(1);
    await maakVerkopen(t.db.prisma, { lat: 52.1, lon: 5.1, n: 30, van: '2026-01-01', tot: '2026-10-31', prefix: 'nieuw' });
    await waarde();
    for (let i = 0; i < 300 && gebouwd().length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect(gebouwd()).toHaveLength(2);
    expect(gebouwd()[1].reqId).toBeUndefined();
  }, 60_000);
});
