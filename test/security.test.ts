import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { controleerBeheerApi, controleerFamilieEnRechten, controleerOngeldigeSleutels, operaties, roep, type Operatie } from './support/security.ts';

/** Security of every operation in the OpenAPI document (decisions sections 3 and 4). */
describe(`security of every REST operation (${dialect})`, () => {
  let t: TestApp;
  let ops: Operatie[];
  beforeAll(async () => {
    t = await createTestApp();
    ops = await operaties(t);
  });
  afterAll(async () => t?.close());

  it('the document lists whoami and the five lookups, so the checks below cover them', () => {
    const namen = ops.map((o) => `${o.methode} ${o.pad}`);
    for (const p of ['GET /whoami', 'POST /inzicht/adres', 'POST /inzicht/woz', 'POST /inzicht/energielabel', 'POST /inzicht/woningtype', 'POST /inzicht/invloeden']) {
      expect(namen).toContain(p);
    }
  });

  it('every operation refuses missing, malformed, unknown, revoked, deleted-account and expired keys with 401', async () => {
    const n = await controleerOngeldigeSleutels(t, ops);
    expect(n).toBeGreaterThanOrEqual(ops.length * 10);
  });

  it('a management key and a key without inzicht:lezen get 403 on every insight route, 200 on whoami', async () => {
    const n = await controleerFamilieEnRechten(t, ops);
    expect(n).toBe(ops.length * 4);
  });

  it('an insight key gets 403 on the management API (/api/v1/projecten*)', async () => {
    expect(await controleerBeheerApi(t)).toBeGreaterThan(0);
  });

  it('a valid insight key passes the same operations (the refusals above are not a broken route)', async () => {
    const { key } = await t.klant(100);
    for (const op of ops) {
      const res = await roep(t, op, `Bearer ${key}`);
      expect([401, 403], `${op.methode} ${op.pad}: ${res.body}`).not.toContain(res.statusCode);
      expect(res.statusCode, `${op.methode} ${op.pad}: ${res.body}`).toBeLessThan(500);
    }
  });
});
