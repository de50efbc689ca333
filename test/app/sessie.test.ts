import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';
import { dialect } from '../support/db.ts';
import { adresBody, maakVolledigAdres } from '../support/register.ts';
import { controleerWachtwoord, hashWachtwoord } from '../../src/domain/gebruikers/wachtwoord.ts';
import { SESSIE_DUUR_MS, maakGebruiker } from '../../src/domain/gebruikers/gebruikers.ts';
import { loadConfig } from '../../src/config/env.ts';
import { aanmelden, expectWeigering, gebruiker, trpc, WACHTWOORD } from './trpc-hulp.ts';
import { APP_LIMIET_ACCOUNT } from '../../src/domain/gebruikers/inlogpogingen.ts';

describe(`web-app sessions over /trpc (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('hashes passwords with scrypt and a salt; only the right password matches', async () => {
    const a = await hashWachtwoord('correct horse battery');
    const b = await hashWachtwoord('correct horse battery');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(a).not.toBe(b);
    expect(await controleerWachtwoord('correct horse battery', a)).toBe(true);
    expect(await controleerWachtwoord('correct horse batterY', a)).toBe(false);
    expect(await controleerWachtwoord('x', 'geen-hash')).toBe(false);
  });

  it('login sets an HttpOnly SameSite=Lax session cookie, stores only its hash, and returns the CSRF token', async () => {
    const g = await gebruiker(t);
    const r = await trpc(t, 'mutation', 'sessie.aanmelden', { email: g.email.toUpperCase(), wachtwoord: WACHTWOORD }, { ip: '10.1.0.1' });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ email: g.email, csrf: expect.stringMatching(/^[\w-]{43}$/) });
    const c = r.setCookie.find((x) => x.startsWith('insight_sessie='))!;
    expect(c).toMatch(/HttpOnly/);
    expect(c).toMatch(/SameSite=Lax/);
    expect(c).toMatch(/Path=\//);
    expect(c).not.toMatch(/Secure/); // plain http on a loopback host (app.inject uses localhost)
    const token = c.split(';')[0].split('=')[1];
    const rows = await t.db.prisma.session.findMany({ where: { user: { email: g.email } } });
    expect(rows).toHaveLength(1);
    expect(rows[0].id).not.toContain(token);
    expect(rows[0].verlooptOp.getTime() - t.clock.now.getTime()).toBe(SESSIE_DUUR_MS);
    const huidig = await trpc(t, 'query', 'sessie.huidig', undefined, { sessie: { cookie: c.split(';')[0] } });
    expect(huidig.data).toMatchObject({ email: g.email, csrf: r.data.csrf });
    expect(huidig.headers['cache-control']).toBe('no-store');
  });

  it('the cookie is Secure outside local http', async () => {
    const g = await gebruiker(t);
    const res = await t.app.inject({
      method: 'POST', url: '/trpc/sessie.aanmelden', headers: { 'content-type': 'application/json', host: 'insight.example.nl' },
      payload: JSON.stringify({ email: g.email, wachtwoord: WACHTWOORD }), remoteAddress: '10.1.0.2',
    });
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['set-cookie'])).toMatch(/Secure/);
  });

  it('a wrong password and an unknown e-mail get the same 401 answer', async () => {
    const g = await gebruiker(t);
    const fout = await trpc(t, 'mutation', 'sessie.aanmelden', { email: g.email, wachtwoord: 'verkeerd-wachtwoord' }, { ip: '10.1.0.3' });
    const onbekend = await trpc(t, 'mutation', 'sessie.aanmelden', { email: 'niemand@voorbeeld.nl', wachtwoord: 'verkeerd-wachtwoord' }, { ip: '10.1.0.3' });
    expect(expectWeigering(fout, 401)).toBe(expectWeigering(onbekend, 401));
    expect(fout.setCookie).toEqual([]);
  });

  it('bad input is a Dutch 400', async () => {
    expectWeigering(await trpc(t, 'mutation', 'sessie.aanmelden', { email: '', wachtwoord: 'x' }, { ip: '10.1.0.4' }), 400);
    expectWeigering(await trpc(t, 'mutation', 'sessie.aanmelden', { email: 'a@b.nl', wachtwoord: 'x'.repeat(201) }, { ip: '10.1.0.4' }), 400);
    expectWeigering(await trpc(t, 'mutation', 'sessie.aanmelden', 'geen object', { ip: '10.1.0.4' }), 400);
    const r = await t.app.inject({ method: 'POST', url: '/trpc/sessie.aanmelden', headers: { 'content-type': 'application/json' }, payload: '{kapot' });
    expect(r.statusCode).toBe(400);
  });

  it('a body that is not JSON is refused before it is read: a multipart body has no way past the body limit (415)', async () => {
    const grens = 'x'.repeat(16);
    const groot = `--${grens}\r\nContent-Disposition: form-data; name="email"\r\n\r\n${'a'.repeat(2_000_000)}\r\n--${grens}--\r\n`;
    for (const [type, payload] of [[`multipart/form-data; boundary=${grens}`, groot], ['text/plain', '{"email":"a@b.nl","wachtwoord":"x"}']]) {
      const r = await t.app.inject({ method: 'POST', url: '/trpc/sessie.aanmelden', headers: { 'content-type': type, 'x-forwarded-for': '10.1.0.5' }, payload });
      expect(r.statusCode, type).toBe(415);
      expect(r.json()).toEqual({ fout: 'Stuur de body als application/json.' });
    }
  });

  it('10 wrong passwords for one e-mail within a minute: the 10th and every later try get 429, even the right password; a minute later it works', async () => {
    const g = await gebruiker(t);
    const statussen: number[] = [];
    for (let i = 0; i < 10; i++) {
      statussen.push((await trpc(t, 'mutation', 'sessie.aanmelden', { email: g.email, wachtwoord: `fout-${i}-xxxxxxxx` }, { ip: `10.2.0.${i}` })).status);
    }
    expect(statussen).toEqual([401, 401, 401, 401, 401, 401, 401, 401, 401, 429]);
    const goed = await trpc(t, 'mutation', 'sessie.aanmelden', { email: g.email, wachtwoord: WACHTWOORD }, { ip: '10.2.1.1' });
    expect(expectWeigering(goed, 429)).toMatch(/Te veel mislukte aanmeldpogingen/);
    expect(Number(goed.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(goed.headers['retry-after'])).toBeLessThanOrEqual(60);
    // An unknown e-mail is limited the same way (no hint that it does not exist).
    const onbekend: number[] = [];
    for (let i = 0; i < 10; i++) onbekend.push((await trpc(t, 'mutation', 'sessie.aanmelden', { email: 'bestaat-niet@voorbeeld.nl', wachtwoord: 'fout-fout-fout' }, { ip: `10.3.0.${i}` })).status);
    expect(onbekend).toEqual(statussen);
    t.clock.advance(61_000);
    expect((await trpc(t, 'mutation', 'sessie.aanmelden', { email: g.email, wachtwoord: WACHTWOORD }, { ip: '10.2.1.1' })).status).toBe(200);
  });

  it('a parallel burst of 25 wrong passwords checks at most 10 of them; the rest get 429', async () => {
    const g = await gebruiker(t);
    const statussen = await Promise.all(
      Array.from({ length: 25 }, (_, i) => trpc(t, 'mutation', 'sessie.aanmelden', { email: g.email, wachtwoord: `parallel-${i}-fout` }, { ip: `10.5.0.${i}` }).then((r) => r.status)),
    );
    expect(statussen.filter((s) => s === 401).length).toBe(9);
    expect(statussen.filter((s) => s === 429).length).toBe(16);
    t.clock.advance(61_000);
  });

  it('30 failures from one IP over different e-mails get 429 for that IP only', async () => {
    const statussen: number[] = [];
    for (let i = 0; i < 30; i++) {
      statussen.push((await trpc(t, 'mutation', 'sessie.aanmelden', { email: `ip-test-${i}@voorbeeld.nl`, wachtwoord: 'fout-fout-fout' }, { ip: '10.4.4.4' })).status);
    }
    expect(statussen.slice(0, 29).every((s) => s === 401)).toBe(true);
    expect(statussen[29]).toBe(429);
    const g = await gebruiker(t);
    expect((await trpc(t, 'mutation', 'sessie.aanmelden', { email: g.email, wachtwoord: WACHTWOORD }, { ip: '10.4.4.4' })).status).toBe(429);
    expect((await trpc(t, 'mutation', 'sessie.aanmelden', { email: g.email, wachtwoord: WACHTWOORD }, { ip: '10.4.4.5' })).status).toBe(200);
  });

  it('an IPv6 client counts by its /64: 30 failures over 30 addresses of one /64 get 429, another /64 is free', async () => {
    const statussen: number[] = [];
    for (let i = 0; i < 30; i++) {
      statussen.push((await trpc(t, 'mutation', 'sessie.aanmelden', { email: `ip6-test-${i}@voorbeeld.nl`, wachtwoord: 'fout-fout-fout' }, { ip: `2001:db8:4:4::${(i + 1).toString(16)}` })).status);
    }
    expect(statussen[29]).toBe(429);
    const g = await gebruiker(t);
    expect((await trpc(t, 'mutation', 'sessie.aanmelden', { email: g.email, wachtwoord: WACHTWOORD }, { ip: '2001:db8:4:4:ffff::1' })).status).toBe(429);
    expect((await trpc(t, 'mutation', 'sessie.aanmelden', { email: g.email, wachtwoord: WACHTWOORD }, { ip: '2001:db8:4:5::1' })).status).toBe(200);
  });

  it('logout needs the CSRF token, ends the session and clears the cookie', async () => {
    const s = await aanmelden(t);
    expect(expectWeigering(await trpc(t, 'mutation', 'sessie.afmelden', undefined, { sessie: s, zonderCsrf: true }), 403)).toMatch(/CSRF/);
    expectWeigering(await trpc(t, 'mutation', 'sessie.afmelden', undefined, { sessie: { ...s, csrf: `${s.csrf.slice(0, -1)}${s.csrf.endsWith('x') ? 'y' : 'x'}` } }), 403);
    const uit = await trpc(t, 'mutation', 'sessie.afmelden', undefined, { sessie: s });
    expect(uit.status).toBe(200);
    expect(uit.setCookie.join()).toMatch(/insight_sessie=;.*Expires=Thu, 01 Jan 1970/);
    expectWeigering(await trpc(t, 'query', 'sessie.huidig', undefined, { sessie: s }), 401);
  });

  it('changes per account are limited: the 61st within a minute gets a Dutch 429 with Retry-After, changes nothing, and signing out still works', async () => {
    const s = await aanmelden(t);
    const ander = await aanmelden(t);
    const statussen: number[] = [];
    for (let i = 0; i < APP_LIMIET_ACCOUNT; i++) statussen.push((await trpc(t, 'mutation', 'tegoed.drempel', { credits: i }, { sessie: s })).status);
    expect(statussen.every((x) => x === 200)).toBe(true);
    const teVeel = await trpc(t, 'mutation', 'webhooks.maak', { url: 'https://voorbeeld.nl/haak', events: ['saldo.laag'] }, { sessie: s });
    expect(expectWeigering(teVeel, 429)).toMatch(/^Te veel wijzigingen achter elkaar; probeer het over \d+ seconden opnieuw\.$/);
    expect(Number(teVeel.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(teVeel.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(await t.db.prisma.webhookEndpoint.count({ where: { accountId: s.accountId } })).toBe(0);
    // Reading goes on; another account is not affected.
    expect((await trpc(t, 'query', 'sessie.huidig', undefined, { sessie: s })).status).toBe(200);
    expect((await trpc(t, 'mutation', 'tegoed.drempel', { credits: 5 }, { sessie: ander })).status).toBe(200);
    t.clock.advance(61_000);
    expect((await trpc(t, 'mutation', 'tegoed.drempel', { credits: 7 }, { sessie: s })).status).toBe(200);
    expect((await trpc(t, 'mutation', 'sessie.afmelden', undefined, { sessie: s })).status).toBe(200);
  });

  it('no session, a made-up cookie, an expired session: 401', async () => {
    expectWeigering(await trpc(t, 'query', 'sessie.huidig'), 401);
    expectWeigering(await trpc(t, 'query', 'sessie.huidig', undefined, { sessie: { cookie: 'insight_sessie=verzonnen' } }), 401);
    const s = await aanmelden(t);
    t.clock.advance(SESSIE_DUUR_MS);
    expectWeigering(await trpc(t, 'query', 'sessie.huidig', undefined, { sessie: s }), 401);
    expect(await t.db.prisma.session.count({ where: { user: { email: s.email } } })).toBe(0);
  });

  it('an API key is refused on /trpc, even beside a valid session', async () => {
    const s = await aanmelden(t);
    const key = await t.key(s.accountId);
    expect(expectWeigering(await trpc(t, 'query', 'sleutels.lijst', undefined, { headers: { authorization: `Bearer ${key}` } }), 401)).toMatch(/API-sleutels/);
    expectWeigering(await trpc(t, 'query', 'sleutels.lijst', undefined, { sessie: s, headers: { authorization: `Bearer ${key}` } }), 401);
  });

  it('a state-changing call from another origin is refused, even with session and CSRF token', async () => {
    const s = await aanmelden(t);
    expectWeigering(await trpc(t, 'mutation', 'sleutels.maak', { naam: 'x' }, { sessie: s, headers: { origin: 'https://kwaadwillig.example' } }), 403);
    const g = await gebruiker(t);
    expectWeigering(await trpc(t, 'mutation', 'sessie.aanmelden', { email: g.email, wachtwoord: WACHTWOORD }, { headers: { origin: 'https://kwaadwillig.example' } }), 403);
    expect((await trpc(t, 'mutation', 'sleutels.maak', { naam: 'x' }, { sessie: s, headers: { origin: 'http://localhost:80' } })).status).toBe(200);
  });

  it('a session cookie is not a credential on public REST or MCP: 401', async () => {
    const s = await aanmelden(t);
    const a = await maakVolledigAdres(t.db.prisma);
    const rest = await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/woz', headers: { 'content-type': 'application/json', cookie: s.cookie, 'x-csrf-token': s.csrf }, payload: JSON.stringify(adresBody(a)) });
    expect(rest.statusCode).toBe(401);
    expect(rest.json()).toEqual({ fout: expect.any(String) });
    const who = await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { cookie: s.cookie } });
    expect(who.statusCode).toBe(401);
    const mcp = await t.app.inject({
      method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', cookie: s.cookie },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.statusCode).toBe(401);
    expect(await t.db.prisma.usageRecord.count({ where: { accountId: s.accountId } })).toBe(0);
  });

  it('users: an e-mail is unique, a short password is refused, an unknown account is refused', async () => {
    const g = await gebruiker(t);
    await expect(maakGebruiker(t.db.prisma, { accountId: g.accountId, email: g.email.toUpperCase(), wachtwoord: WACHTWOORD })).rejects.toThrow(/al een gebruiker/);
    await expect(maakGebruiker(t.db.prisma, { accountId: g.accountId, email: 'kort@voorbeeld.nl', wachtwoord: 'kort' })).rejects.toThrow(/minstens 12/);
    await expect(maakGebruiker(t.db.prisma, { accountId: '00000000-0000-4000-8000-000000000000', email: 'x@voorbeeld.nl', wachtwoord: WACHTWOORD })).rejects.toThrow(/bestaat niet/);
  });
});

describe(`web-app logins behind a reverse proxy (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ TRUST_PROXY: '10.9.0.0/16' });
  });
  afterAll(async () => t?.close());

  const viaProxy = (klant: string, proxy = '10.9.9.9') => ({ ip: proxy, headers: { 'x-forwarded-for': klant } });

  it('TRUST_PROXY: the login limit counts the client from X-Forwarded-For, so one attacker cannot lock everyone out', async () => {
    const statussen: number[] = [];
    for (let i = 0; i < 30; i++) {
      statussen.push((await trpc(t, 'mutation', 'sessie.aanmelden', { email: `aanvaller-${i}@voorbeeld.nl`, wachtwoord: 'fout-fout-fout' }, viaProxy('203.0.113.7'))).status);
    }
    expect(statussen[29]).toBe(429);
    const g = await gebruiker(t);
    expect((await trpc(t, 'mutation', 'sessie.aanmelden', { email: g.email, wachtwoord: WACHTWOORD }, viaProxy('203.0.113.7'))).status).toBe(429);
    expect((await trpc(t, 'mutation', 'sessie.aanmelden', { email: g.email, wachtwoord: WACHTWOORD }, viaProxy('198.51.100.20'))).status).toBe(200);
    // A header from an address outside the trusted range is not believed: that is the sender itself.
    const buiten = await trpc(t, 'mutation', 'sessie.aanmelden', { email: g.email, wachtwoord: WACHTWOORD }, viaProxy('198.51.100.21', '203.0.113.7'));
    expect(buiten.status).toBe(429);
  });

  it('TRUST_PROXY: the Origin check compares with the public host the proxy forwards (X-Forwarded-Host)', async () => {
    const g = await gebruiker(t);
    const publiek = { host: '127.0.0.1:3000', 'x-forwarded-host': 'insight.voorbeeld.nl', 'x-forwarded-proto': 'https', origin: 'https://insight.voorbeeld.nl' };
    const via = (proxy: string) => ({ ip: proxy, headers: { ...publiek, 'x-forwarded-for': '198.51.100.30' } });
    expect((await trpc(t, 'mutation', 'sessie.aanmelden', { email: g.email, wachtwoord: WACHTWOORD }, via('10.9.9.9'))).status).toBe(200);
    // The same headers from an address that is no trusted proxy: the Host header counts, the origin is foreign.
    expectWeigering(await trpc(t, 'mutation', 'sessie.aanmelden', { email: g.email, wachtwoord: WACHTWOORD }, via('203.0.113.9')), 403);
  });

  it('a TRUST_PROXY that is not an address, range or hop count stops the start with a Dutch message', () => {
    expect(() => loadConfig({}, { TRUST_PROXY: '10.0.0.0/8, proxy.example' })).toThrow(/TRUST_PROXY: 'proxy.example' is geen adres/);
    expect(loadConfig({}, { TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadConfig({}, { TRUST_PROXY: 'loopback, 10.0.0.1' }).TRUST_PROXY).toEqual(['loopback', '10.0.0.1']);
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
  });
});
