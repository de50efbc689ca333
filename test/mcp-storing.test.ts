/**
 * An MCP call does not look for a stored answer before its work (decisions section 5): when the work of a
 * repeat fails (a source out, the valuation model still loading), the stored answer of the identical call
 * is still what it gets, uncharged, not the failure.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InsightFout } from '../src/core/errors.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { maakVolledigAdres } from './support/register.ts';

const storing = vi.hoisted(() => ({ aan: false }));

vi.mock('../src/domain/register/opvragen.ts', async (importOriginal) => {
  const echt = await importOriginal<typeof import('../src/domain/register/opvragen.ts')>();
  return {
    ...echt,
    wozWaarden(...args: Parameters<typeof echt.wozWaarden>) {
      if (storing.aan) throw new InsightFout('niet_beschikbaar', 'De WOZ-bron is tijdelijk niet bereikbaar.');
      return echt.wozWaarden(...args);
    },
  };
});

describe(`MCP repeat while the source is out (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  async function roep(key: string, args: Record<string, unknown>) {
    const r = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'woz', arguments: args } }),
    });
    return { http: r.statusCode, ...(r.json() as { result: { isError?: boolean; structuredContent: { status?: number; data?: unknown; meta?: { cached: boolean; gefactureerd_cent: number } } }; fout?: string }) };
  }

  it('an identical call replays the stored answer uncharged; a new call gets the 503', async () => {
    const { accountId, key } = await t.klant(10);
    const a = await maakVolledigAdres(t.db.prisma);
    const eerste = await roep(key, { postcode: a.postcode, huisnummer: a.huisnummer });
    expect(eerste.result.structuredContent.meta).toMatchObject({ cached: false, gefactureerd_cent: 5 });
    storing.aan = true;
    try {
      const herhaling = await roep(key, { postcode: a.postcode, huisnummer: a.huisnummer });
      expect(herhaling.result.isError).toBeFalsy();
      expect(herhaling.result.structuredContent).toMatchObject({ data: eerste.result.structuredContent.data, meta: { cached: true, gefactureerd_cent: 0 } });
      const b = await maakVolledigAdres(t.db.prisma);
      const nieuw = await roep(key, { postcode: b.postcode, huisnummer: b.huisnummer });
      // An outage is an HTTP 503 with {fout} and Retry-After over MCP too (docs/mcp.md), not a tool result.
      expect(nieuw).toMatchObject({ http: 503, fout: 'De WOZ-bron is tijdelijk niet bereikbaar.' });
    } finally {
      storing.aan = false;
    }
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits).toBe(9);
    expect(await t.db.prisma.usageRecord.count({ where: { accountId } })).toBe(1);
  });
});
