import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { aanmelden, expectWeigering, trpc } from './app/trpc-hulp.ts';

/**
 * A NUL character (\u0000) in stored free text: PostgreSQL refuses it in text (22021), so without a check
 * it was a 500 — on the login too, without an account. Now a Dutch 400 that names the field, nothing stored.
 */
describe(`a NUL character in free text (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ WEBHOOK_ALLOW_INSECURE: 'true' });
  });
  afterAll(async () => t?.close());

  it('REST webhooks: create and change with a NUL in omschrijving or url are a 400 naming the field, nothing stored', async () => {
    const { key, accountId } = await t.klant(10);
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    for (const payload of [
      { url: 'http://127.0.0.1:9/h', events: ['saldo.laag'], omschrijving: 'a\u0000' },
      { url: 'http://127.0.0.1:9/h\u0000', events: ['saldo.laag'] },
    ]) {
      const r = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: auth, payload });
      expect(r.statusCode, r.body).toBe(400);
      expect(r.json().fout).toMatch(/^Ongeldige invoer: (omschrijving|url): bevat een NUL-teken/);
    }
    expect(await t.db.prisma.webhookEndpoint.count({ where: { accountId } })).toBe(0);
    const goed = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: auth, payload: { url: 'http://127.0.0.1:9/h', events: ['saldo.laag'], omschrijving: 'oud' } });
    expect(goed.statusCode, goed.body).toBe(200);
    const id = goed.json().data.id;
    const r = await t.app.inject({ method: 'PATCH', url: `/api/v1/webhooks/${id}`, headers: auth, payload: { omschrijving: 'a\u0000b', url: 'http://127.0.0.1:9/nieuw' } });
    expect(r.statusCode, r.body).toBe(400);
    expect(await t.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } })).toMatchObject({ omschrijving: 'oud', url: 'http://127.0.0.1:9/h' });
  });

  it('web app: the login (no account needed), a key name and a webhook description are a 400, not a 500', async () => {
    expectWeigering(await trpc(t, 'mutation', 'sessie.aanmelden', { email: 'a\u0000@x.nl', wachtwoord: 'x' }, { ip: '10.77.0.1' }), 400);
    const s = await aanmelden(t);
    expect(expectWeigering(await trpc(t, 'mutation', 'sleutels.maak', { naam: 'a\u0000b' }, { sessie: s }), 400)).toMatch(/naam: bevat een NUL-teken/);
    expectWeigering(await trpc(t, 'mutation', 'webhooks.maak', { url: 'http://127.0.0.1:9/h', events: ['saldo.laag'], omschrijving: 'x\u0000' }, { sessie: s }), 400);
  });
});
