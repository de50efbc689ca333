import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { seedDemo } from '../src/seed.ts';
import { kiesAdres, toonToevoeging } from '../src/domain/register/adressen.ts';
import { toevoegingSleutel } from '../src/domain/begrippen.ts';
import { toevoegingSchema } from '../src/procedures/inzicht/gedeeld.ts';
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { clientTypes } from '../examples/typescript/genereer.ts';
import path from 'node:path';
import { maskeer, verzamelVoorbeelden, type Voorbeeld } from '../src/gateways/openapi-voorbeelden.ts';
import voorbeelden from '../src/gateways/openapi-voorbeelden.json' with { type: 'json' };

/**
 * The `toevoeging` an answer carries, sent back, reaches the same dwelling (README "Decisions taken
 * here"): checked for every address of the demo dataset by the resolution the API runs (kiesAdres),
 * and through REST for every address whose addition equals another's once separators are dropped
 * (9A and 9-A) plus the first address of every shape the demo holds (none, `A`, `-2`, `-A`; `A-2` below).
 */
/** A Python 3 that has httpx: the one on PATH, else Debian's (python3-httpx installs there). */
const python = ['python3', '/usr/bin/python3'].find((p) => {
  try {
    execFileSync(p, ['-c', 'import httpx'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
});
const httpxAanwezig = python !== undefined;

describe(`toevoeging round trip over the demo dataset (${dialect})`, () => {
  let t: TestApp;
  let key: string;
  type Rij = { id: string; postcode: string; huisnummer: number; huisletter: string | null; toevoeging: string | null };
  let rijen: Rij[];
  const groepen = new Map<string, Rij[]>();
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '100000', DATA_DIR: `.tmp/demo-contract-${dialect}` });
    await seedDemo(t.services, t.services.config, t.db);
    key = (await t.klant(100_000)).key;
    rijen = await t.db.prisma.adres.findMany({
      select: { id: true, postcode: true, huisnummer: true, huisletter: true, toevoeging: true },
      orderBy: [{ postcode: 'asc' }, { huisnummer: 'asc' }, { huisletter: 'asc' }, { toevoeging: 'asc' }],
    });
    for (const r of rijen) {
      const k = `${r.postcode} ${r.huisnummer}`;
      groepen.set(k, [...(groepen.get(k) ?? []), r]);
    }
  }, 300_000);
  afterAll(async () => t?.close());

  /** Run a client example with the URL of this app (listening on loopback) and the demo account's key. */
  async function voerVoorbeeldUit(cmd: string, args: string[]) {
    const url = t.app.server.listening ? `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}` : await t.app.listen({ host: '127.0.0.1', port: 0 });
    const demoSleutel = readFileSync(path.join(t.services.config.DATA_DIR, 'demo-sleutel.txt'), 'utf8').trim();
    return promisify(execFile)(cmd, args, { env: { ...process.env, INSIGHT_URL: url, INSIGHT_KEY: demoSleutel } });
  }

  it('the OpenAPI examples are what the demo answers (npm run openapi:voorbeelden writes them)', async () => {
    const demoSleutel = readFileSync(path.join(t.services.config.DATA_DIR, 'demo-sleutel.txt'), 'utf8').trim();
    const arm = await t.account(0);
    const live = await verzamelVoorbeelden(t.app, demoSleutel, await t.key(arm.id));
    // Usage rows share one timestamp under the test clock, so which two come first is free: compare their fields.
    const vergelijkbaar = (vs: Voorbeeld[]) =>
      (maskeer(vs) as Voorbeeld[]).map((v) => (v.pad === '/verbruik' ? { ...v, antwoord: { ...(v.antwoord as object), data: (v.antwoord as { data: object[] }).data.map((r) => Object.keys(r)) } } : v));
    expect(vergelijkbaar(live)).toEqual(vergelijkbaar(voorbeelden as Voorbeeld[]));
  });

  it('the typed TypeScript client example runs against the demo; its generated types are current', async () => {
    expect(await clientTypes(), 'run npm run client:types').toBe(readFileSync('examples/typescript/insight-api.d.ts', 'utf8'));
    const { stdout } = await voerVoorbeeldUit(process.execPath, ['--disable-warning=ExperimentalWarning', 'examples/typescript/waarde.ts']);
    expect(JSON.parse(stdout)).toMatchObject({ weergave: 'Maantulpstraat 3, 7800 SD Verzonnenveen', marktwaarde: expect.any(Number), gefactureerd_cent: 90, saldo_credits: expect.any(Number) });
  });

  it.skipIf(!httpxAanwezig)('the Python httpx example runs against the demo (skipped without python3-httpx)', async () => {
    const { stdout } = await voerVoorbeeldUit(python!, ['examples/python/waarde.py']);
    expect(JSON.parse(stdout)).toMatchObject({ weergave: 'Maantulpstraat 3, 7800 SD Verzonnenveen', marktwaarde: expect.any(Number), gefactureerd_cent: 90 });
  });

  it('every demo address: the shown toevoeging is valid input and resolves to that address', () => {
    expect(rijen.length).toBeGreaterThanOrEqual(20_000);
    const mis: string[] = [];
    for (const r of rijen) {
      const getoond = toonToevoeging(r);
      if (getoond !== null && !toevoegingSchema.safeParse(getoond).success) mis.push(`${r.postcode} ${r.huisnummer} '${getoond}' ongeldig`);
      const u = kiesAdres(groepen.get(`${r.postcode} ${r.huisnummer}`)!, getoond);
      if (u.soort !== 'gevonden' || u.adres.id !== r.id) mis.push(`${r.postcode} ${r.huisnummer} '${getoond}' -> ${u.soort}`);
    }
    expect(mis).toEqual([]);
  });

  it('through REST: the colliding additions and one address of every shape come back to themselves', async () => {
    const vorm = (r: Rij) => (toonToevoeging(r) ?? '').replace(/[A-Z]/g, 'A').replace(/[0-9]+/g, '2');
    const botsend = [...groepen.values()].flatMap((g) => g.filter((r) => g.some((o) => o !== r && toevoegingSleutel(o.huisletter, o.toevoeging) === toevoegingSleutel(r.huisletter, r.toevoeging))));
    const perVorm = [...new Map(rijen.map((r) => [vorm(r), r] as const)).values()];
    // Both kinds of `A` at one number exist (the letter-of-toevoeging demo case), and each shape occurs.
    expect(botsend.length).toBeGreaterThanOrEqual(2);
    expect(new Set(perVorm.map(vorm))).toEqual(new Set(['', 'A', '-2', '-A']));
    const gedeeld = [...botsend, ...perVorm];
    const mis: string[] = [];
    for (const r of gedeeld) {
      const vraag = (toevoeging: string | null) =>
        t.app.inject({ method: 'POST', url: '/api/v1/inzicht/adres', headers: { authorization: `Bearer ${key}` }, payload: { adres: { postcode: r.postcode, huisnummer: String(r.huisnummer), toevoeging } } });
      const eerste = await vraag(toonToevoeging(r));
      if (eerste.statusCode !== 200) { mis.push(`${r.postcode} ${r.huisnummer} ${toonToevoeging(r)}: ${eerste.statusCode}`); continue; }
      const adres = eerste.json().data.adres;
      const terug = await vraag(adres.toevoeging);
      if (terug.statusCode !== 200 || terug.json().data.bag_verblijfsobject_id !== eerste.json().data.bag_verblijfsobject_id || terug.json().data.adres.weergave !== adres.weergave)
        mis.push(`${adres.weergave}: '${adres.toevoeging}' -> ${terug.statusCode} ${terug.json().data?.adres?.weergave}`);
    }
    expect(mis).toEqual([]);
  }, 600_000);
});

describe('toevoeging shapes the demo does not hold', () => {
  it('12A-2, 12-A2 and 12A at one number each come back to themselves', () => {
    const groep = [
      { id: 'a', huisnummer: 12, huisletter: 'A', toevoeging: null },
      { id: 'a-2', huisnummer: 12, huisletter: 'A', toevoeging: '2' },
      { id: '-a2', huisnummer: 12, huisletter: null, toevoeging: 'A2' },
      { id: 'b-a', huisnummer: 12, huisletter: 'b', toevoeging: 'A' },
    ];
    expect(groep.map(toonToevoeging)).toEqual(['A', 'A-2', '-A2', 'b-A']);
    for (const r of groep) expect(kiesAdres(groep, toonToevoeging(r))).toMatchObject({ soort: 'gevonden', adres: { id: r.id } });
  });
});
