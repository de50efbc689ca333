import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';
import { dialect } from '../support/db.ts';
import { datumAmsterdam } from '../../src/domain/begrippen.ts';
import { afleveringenPagina, afleveringOpnieuw, maakEndpoint, wijzigEndpoint } from '../../src/domain/webhooks/beheer.ts';
import { schrijfGebeurtenis } from '../../src/domain/webhooks/gebeurtenissen.ts';
import { aanmelden, expectWeigering, trpc } from './trpc-hulp.ts';

/** What a customer meets in the web app's procedures: keys, the usage chart's filters, the saldo.laag threshold, webhook attempts. */
describe(`web app for a customer (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('makes insight keys only: a "beheer" key is no product of this service', async () => {
    const s = await aanmelden(t);
    expectWeigering(await trpc(t, 'mutation', 'sleutels.maak', { naam: 'beheer', familie: 'beheer' }, { sessie: s }), 400);
    const r = await trpc(t, 'mutation', 'sleutels.maak', { naam: 'gewoon' }, { sessie: s });
    expect(r.status).toBe(200);
    expect(await t.db.prisma.apiKey.findMany({ where: { accountId: s.accountId }, select: { familie: true } })).toEqual([{ familie: 'inzicht' }]);
  });

  it('makes a test key, and sets, shows and clears a live key\'s monthly cap; a test key takes no cap', async () => {
    const s = await aanmelden(t);
    const test = await trpc(t, 'mutation', 'sleutels.maak', { naam: 'ci', test: true }, { sessie: s });
    expect(test.data.sleutel).toMatch(/^pct_test_/);
    const live = (await trpc(t, 'mutation', 'sleutels.maak', { naam: 'agent' }, { sessie: s })).data.id as string;
    expect((await trpc(t, 'mutation', 'sleutels.maandlimiet', { id: live, credits: 180 }, { sessie: s })).status).toBe(200);
    expectWeigering(await trpc(t, 'mutation', 'sleutels.maandlimiet', { id: live, credits: -1 }, { sessie: s }), 400);
    expectWeigering(await trpc(t, 'mutation', 'sleutels.maandlimiet', { id: test.data.id, credits: 5 }, { sessie: s }), 400);
    const lijst = (await trpc(t, 'query', 'sleutels.lijst', undefined, { sessie: s })).data as { id: string; modus: string; maandlimiet: unknown }[];
    expect(lijst.find((k) => k.id === live)).toMatchObject({ modus: 'live', maandlimiet: { credits: 180, verbruikt: 0, resterend: 180, maand: expect.stringMatching(/^\d{4}-\d{2}$/) } });
    expect(lijst.find((k) => k.id === test.data.id)).toMatchObject({ modus: 'test', maandlimiet: null });
    await trpc(t, 'mutation', 'sleutels.maandlimiet', { id: live, credits: null }, { sessie: s });
    expect(((await trpc(t, 'query', 'sleutels.lijst', undefined, { sessie: s })).data as { id: string; maandlimiet: unknown }[]).find((k) => k.id === live)?.maandlimiet).toBeNull();
  });

  it('the chart per day takes the list\'s filters: lookup, outcome and key', async () => {
    const s = await aanmelden(t);
    const k1 = await t.db.prisma.apiKey.findFirstOrThrow({ where: { id: (await trpc(t, 'mutation', 'sleutels.maak', { naam: 'een' }, { sessie: s })).data.id } });
    const k2 = (await trpc(t, 'mutation', 'sleutels.maak', { naam: 'twee' }, { sessie: s })).data.id as string;
    const nu = t.services.now();
    const rij = (voorziening: string, status: number, credits: number, keyId = k1.id) =>
      ({ accountId: s.accountId, keyId, kanaal: 'rest', voorziening, status, credits, gefactureerdCent: credits * 5, aangemaaktOp: nu });
    await t.db.prisma.usageRecord.createMany({
      data: [rij('waarde', 200, 18), rij('waarde', 200, 18), rij('waarde', 422, 18), rij('waarde', 404, 0), rij('woz', 200, 1), rij('woz', 200, 1, k2)],
    });
    const dag = datumAmsterdam(nu);
    const som = async (filters: object) => {
      const r = await trpc(t, 'query', 'verbruik.perDag', { van: dag, tot: dag, ...filters }, { sessie: s });
      expect(r.status, r.fout).toBe(200);
      return Object.fromEntries((r.data.per_dag as { voorziening: string; aantal: number; credits: number }[]).map((x) => [x.voorziening, [x.aantal, x.credits]]));
    };
    expect(await som({})).toEqual({ waarde: [4, 54], woz: [2, 2] });
    expect(await som({ voorziening: 'waarde', uitkomst: 'mislukt' })).toEqual({ waarde: [2, 18] });
    expect(await som({ uitkomst: 'geslaagd' })).toEqual({ waarde: [2, 36], woz: [2, 2] });
    expect(await som({ sleutel_id: k2 })).toEqual({ woz: [1, 1] });
    const lijst = await trpc(t, 'query', 'verbruik.lijst', { van: dag, tot: dag, voorziening: 'waarde', uitkomst: 'mislukt' }, { sessie: s });
    expect(lijst.data.totaal).toBe(2);
  });

  it('shows the saldo.laag threshold and lets the account set it (0 to 1,000,000)', async () => {
    const s = await aanmelden(t);
    expect((await trpc(t, 'query', 'tegoed.saldo', undefined, { sessie: s })).data.drempel_credits).toBe(100);
    expect((await trpc(t, 'mutation', 'tegoed.drempel', { credits: 250 }, { sessie: s })).data).toEqual({ drempel_credits: 250 });
    expect((await trpc(t, 'query', 'tegoed.saldo', undefined, { sessie: s })).data.drempel_credits).toBe(250);
    for (const credits of [-1, 1.5, 1_000_001, '10']) expectWeigering(await trpc(t, 'mutation', 'tegoed.drempel', { credits }, { sessie: s }), 400);
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: s.accountId } })).drempelCredits).toBe(250);
  });

  it('a switched-off endpoint plans no next attempt; a manual resend keeps counting the attempts', async () => {
    const acc = await t.account(0);
    const now = t.services.now();
    const { endpoint } = await maakEndpoint(t.db.prisma, { accountId: acc.id, url: 'http://127.0.0.1:9/h', events: ['inzicht.voltooid'], now, onveilig: true });
    await schrijfGebeurtenis(t.db.prisma, { accountId: acc.id, type: 'inzicht.voltooid', data: { n: 1 }, now });
    const later = new Date(now.getTime() + 300_000);
    await t.db.prisma.webhookDelivery.updateMany({ where: { endpointId: endpoint.id }, data: { pogingen: 2, laatsteStatus: 500, volgendePoging: later } });
    const pagina = () => afleveringenPagina(t.db.prisma, { accountId: acc.id, id: endpoint.id, limiet: 10, na: null });
    expect((await pagina())!.regels[0]).toMatchObject({ pogingen: 2, volgendePoging: later });

    await wijzigEndpoint(t.db.prisma, { accountId: acc.id, id: endpoint.id, actief: false, onveilig: true });
    const [uit] = (await pagina())!.regels;
    expect(uit).toMatchObject({ toestand: 'wachtend', pogingen: 2, volgendePoging: null });

    const opnieuw = await afleveringOpnieuw(t.db.prisma, { accountId: acc.id, id: endpoint.id, aflevering: uit.id, now });
    expect(opnieuw).toMatchObject({ pogingen: 2, volgendePoging: null });
    // The retry schedule starts afresh: the series' own count is 0 again.
    expect(await t.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: uit.id } })).toMatchObject({ pogingen: 0, eerderePogingen: 2 });
  });
});
