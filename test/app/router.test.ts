import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';
import { dialect } from '../support/db.ts';
import { appRouter } from '../../src/procedures/router.ts';
import { MCP_TOOLS } from '../../src/gateways/mcp/tools.ts';
import type { Meta } from '../../src/core/trpc.ts';
import { aanmelden, expectWeigering, trpc } from './trpc-hulp.ts';

const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { meta?: Meta } }>);
const app = procedures.filter(([pad]) => pad.startsWith('app.'));

describe(`the web app's procedures are part of the one router, and only of /trpc (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('the one router holds them under app.*, none with OpenAPI or MCP meta', () => {
    expect(app.map(([pad]) => pad)).toEqual(expect.arrayContaining(['app.sessie.aanmelden', 'app.sleutels.maak', 'app.webhooks.maak', 'app.webhooks.opnieuw']));
    expect(app.filter(([, p]) => p._def.meta?.openapi || p._def.meta?.mcp).map(([pad]) => pad)).toEqual([]);
  });

  it('they are neither in the OpenAPI document nor MCP tools', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as { paths: Record<string, Record<string, { operationId?: string }>> };
    const operaties = Object.values(doc.paths).flatMap((item) => Object.values(item));
    expect(operaties).toHaveLength(procedures.filter(([, p]) => p._def.meta?.openapi).length);
    expect(Object.keys(doc.paths).filter((p) => /sessie|sleutels|tegoed|grootboek|afmelden/.test(p))).toEqual([]);
    expect(MCP_TOOLS.map((m) => m.name).sort()).toEqual(['influences', 'property_address', 'property_value', 'woz']);
  });

  it('outside /trpc a session procedure does not run: a REST or MCP context has no session request (401)', async () => {
    await expect(t.caller().app.sleutels.lijst()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    const key = await t.key((await t.account()).id);
    await expect(t.caller(`Bearer ${key}`, 'mcp').app.tegoed.saldo()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(t.caller(undefined, 'rest').app.sessie.aanmelden({ email: 'x@voorbeeld.nl', wachtwoord: 'y' })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('/trpc serves only the app part: the public procedures are not there, with or without a key or session', async () => {
    const s = await aanmelden(t);
    const key = await t.key(s.accountId);
    for (const pad of ['whoami', 'verbruik', 'beheer.toegang', 'app.sleutels.lijst']) {
      expectWeigering(await trpc(t, 'query', pad, undefined, { sessie: s }), 404);
      expectWeigering(await trpc(t, 'query', pad, undefined, { headers: { authorization: `Bearer ${key}` } }), 404);
    }
    expect((await trpc(t, 'query', 'sleutels.lijst', undefined, { sessie: s })).status).toBe(200);
  });
});
