import { type Logger, pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { applyMigrations } from '../src/db/migrate.ts';
import { openDatabase } from '../src/db/client.ts';
import { maakModelHouder } from '../src/domain/valuation/houder.ts';
import { modelCodeVersie } from '../src/domain/valuation/opslag.ts';
import { useCliDatabase } from './support/cli.ts';
import { createTestDatabase, dialect, type TestDatabase, useTestDatabase } from './support/db.ts';
import { type ServerProces, startServer } from './support/server.ts';
import { maakVerkopen } from './support/verkopen.ts';

/** A logger whose lines the test reads back. */
function logMet(): { log: Logger; regels: { msg: string; uitOpslag?: boolean }[] } {
  const regels: { msg: string; uitOpslag?: boolean }[] = [];
  const log: Logger = pino({ level: 'info' }, { write: (s: string) => void regels.push(JSON.parse(s)) });
  return { log, regels };
}

const subject = { lat: 52.1, lon: 5.1, oppervlakte: 110, perceel: null, bouwjaar: 1985, woningtype: 'tussenwoning', energielabel: null };

describe(`the fitted valuation model is stored and loaded again (${dialect})`, () => {
  const t = useTestDatabase();
  beforeEach(async () => {
    await t.prisma.verkoop.deleteMany();
    await t.prisma.waardemodelBlok.deleteMany();
  });

  it('a second process loads the stored model instead of fitting, and answers the same', async () => {
    await maakVerkopen(t.prisma, { lat: 52.1, lon: 5.1, n: 900, van: '2021-01-01', tot: '2026-10-31' });
    const eerste = logMet();
    const a = await maakModelHouder(t.prisma, eerste.log).model();
    expect(eerste.regels.map((r) => r.msg)).toContain('waardemodel gebouwd');
    const blokken = await t.prisma.waardemodelBlok.findMany({ select: { deel: true, versie: true } });
    expect(new Set(blokken.map((b) => b.deel))).toEqual(new Set(['demo', 'register']));
    expect(blokken.every((b) => b.versie === modelCodeVersie())).toBe(true);

    const tweede = logMet();
    const houder = maakModelHouder(t.prisma, tweede.log);
    const b = await houder.model();
    expect(tweede.regels.find((r) => /waardemodel/.test(r.msg))).toMatchObject({ msg: 'waardemodel geladen', uitOpslag: true });
    expect(houder.staat()?.uitOpslag).toBe(true);
    expect(b.info).toEqual(a.info);
    const peil = '2026-11-15';
    expect(b.waardeer(subject, peil)).toEqual(a.waardeer(subject, peil));
    // The sale ids came along: a sale excluded by id is excluded in the loaded model too.
    const zonder = { ...subject, uitsluiten: ['v-0', 'v-1', 'v-2'] };
    expect(b.waardeer(zonder, peil)).toEqual(a.waardeer(zonder, peil));
  }, 120_000);

  it('new sales, other model code or a damaged store: fitted again, never loaded', async () => {
    await maakVerkopen(t.prisma, { lat: 52.1, lon: 5.1, n: 900, van: '2021-01-01', tot: '2026-10-31' });
    await maakModelHouder(t.prisma, logMet().log).model();

    // Held data changed (the vintage): the stored model is stale.
    await maakVerkopen(t.prisma, { lat: 52.1, lon: 5.1, n: 50, van: '2026-01-01', tot: '2026-10-31', seed: 3, prefix: 'nieuw' });
    const na = logMet();
    expect((await maakModelHouder(t.prisma, na.log).model()).info.verkopen).toBe(950);
    expect(na.regels.map((r) => r.msg)).toContain('waardemodel gebouwd');

    // Written by other model code.
    await t.prisma.waardemodelBlok.updateMany({ data: { versie: 'vergelijkingsmodel-2.0+0000' } });
    const ander = logMet();
    await maakModelHouder(t.prisma, ander.log).model();
    expect(ander.regels.map((r) => r.msg)).toContain('waardemodel gebouwd');

    // Damaged bytes: a warning and a fit, and the valuation still answers.
    await t.prisma.$executeRawUnsafe(`UPDATE waardemodel_blok SET data = '\\x00ff00ff'::bytea WHERE deel = 'register'`);
    const kapot = logMet();
    const m = await maakModelHouder(t.prisma, kapot.log).model();
    expect(kapot.regels.map((r) => r.msg)).toEqual(expect.arrayContaining(['opgeslagen waardemodel onleesbaar: opnieuw bouwen', 'waardemodel gebouwd']));
    expect(m.waardeer(subject, '2026-11-15').soort).toBe('waarde');
    // And it was stored again, whole: the next process loads it.
    const daarna = logMet();
    await maakModelHouder(t.prisma, daarna.log).model();
    expect(daarna.regels.map((r) => r.msg)).toContain('waardemodel geladen');
  }, 240_000);

  it('one changed byte in a stored block, same length: caught by the checksum the database wrote, fitted again', async () => {
    await maakVerkopen(t.prisma, { lat: 52.1, lon: 5.1, n: 600, van: '2021-01-01', tot: '2026-10-31' });
    await maakModelHouder(t.prisma, logMet().log).model();
    // Mid-block: inside the serialised state's numbers, where V8 would deserialise a changed byte without complaint.
    await t.prisma.$executeRawUnsafe(
      `UPDATE waardemodel_blok SET data = set_byte(data, octet_length(data) / 2, (get_byte(data, octet_length(data) / 2) + 1) % 256) WHERE deel = 'register' AND volgnr = 0`,
    );
    const l = logMet();
    const h = maakModelHouder(t.prisma, l.log);
    await h.model();
    expect(l.regels.map((r) => r.msg)).toEqual(expect.arrayContaining(['opgeslagen waardemodel onleesbaar: opnieuw bouwen', 'waardemodel gebouwd']));
    // Caught by the checksum, not by V8 failing to deserialise it.
    expect(l.regels).toContainEqual(expect.objectContaining({ msg: 'opgeslagen waardemodel onleesbaar: opnieuw bouwen', err: expect.objectContaining({ type: 'OpslagBeschadigd' }) }));
    expect(h.staat()?.uitOpslag).toBe(false);
  }, 120_000);

  it('a store the database fails to read: the build fails and is retried instead of fitting; fitted only when the read fails twice more', async () => {
    await maakVerkopen(t.prisma, { lat: 52.1, lon: 5.1, n: 600, van: '2021-01-01', tot: '2026-10-31' });
    await maakModelHouder(t.prisma, logMet().log).model();
    /** The same database, whose read of the stored model's block list fails the first `n` times (a timeout, a lost connection). */
    let pogingen = 0;
    const leesFaalt = (n: number) => {
      let over = n;
      pogingen = 0;
      return new Proxy(t.prisma, {
        get(doel, naam) {
          const w = Reflect.get(doel, naam, doel);
          if (naam !== '$queryRawUnsafe') return typeof w === 'function' ? w.bind(doel) : w;
          return (tekst: string, ...waarden: unknown[]) => {
            const lijst = /FROM waardemodel_blok WHERE deel = \$1 ORDER BY volgnr/.test(tekst);
            if (lijst) pogingen++;
            if (lijst && over-- > 0) return Promise.reject(new Error('verbinding verbroken'));
            return doel.$queryRawUnsafe(tekst, ...waarden);
          };
        },
      });
    };
    const gebouwd = async (h: ReturnType<typeof maakModelHouder>) => {
      for (let i = 0; i < 600 && !h.staat(); i++) await new Promise((r) => setTimeout(r, 100));
      return h.staat();
    };

    // Once: the first build fails (nothing fitted), the retry loads the stored model.
    const een = logMet();
    const h1 = maakModelHouder(leesFaalt(1), een.log, { wachtOpEerste: false, opnieuwMs: 50 });
    await expect(h1.laad()).rejects.toThrow('opgeslagen waardemodel niet te lezen');
    expect((await gebouwd(h1))?.uitOpslag).toBe(true);
    expect(een.regels.map((r) => r.msg)).toEqual(expect.arrayContaining(['waardemodel bouwen mislukt', 'waardemodel geladen']));
    expect(een.regels.map((r) => r.msg)).not.toContain('waardemodel gebouwd');

    // Always: two failed builds, then the third fits without it.
    const altijd = logMet();
    const h2 = maakModelHouder(leesFaalt(Infinity), altijd.log, { wachtOpEerste: false, opnieuwMs: 400 });
    await expect(h2.laad()).rejects.toThrow('opgeslagen waardemodel niet te lezen');
    // Valuations during the backoff answer 'not ready' and do not start builds of their own (each would count as a failed read).
    for (let i = 0; i < 5; i++) await expect(h2.model()).rejects.toThrow('wordt nog gebouwd');
    await new Promise((r) => setTimeout(r, 150));
    expect(pogingen).toBe(1);
    expect((await gebouwd(h2))?.uitOpslag).toBe(false);
    const msgs = altijd.regels.map((r) => r.msg);
    expect(msgs.filter((m) => m === 'waardemodel bouwen mislukt')).toHaveLength(2);
    expect(msgs).toEqual(expect.arrayContaining(['opgeslagen waardemodel opnieuw niet te lezen: toch opnieuw bouwen', 'waardemodel gebouwd']));
  }, 180_000);

  it('vernieuw() (an import in this process, `insight waardemodel bouwen`) fits even when a stored model is current', async () => {
    await maakVerkopen(t.prisma, { lat: 52.1, lon: 5.1, n: 600, van: '2021-01-01', tot: '2026-10-31' });
    await maakModelHouder(t.prisma, logMet().log).model();
    const l = logMet();
    const h = maakModelHouder(t.prisma, l.log);
    await h.vernieuw();
    expect(l.regels.map((r) => r.msg)).toContain('waardemodel gebouwd');
    expect(h.staat()?.uitOpslag).toBe(false);
  }, 120_000);

  it('vernieuw() while a start-up load is running fits after that load, instead of handing the loaded model back', async () => {
    await maakVerkopen(t.prisma, { lat: 52.1, lon: 5.1, n: 600, van: '2021-01-01', tot: '2026-10-31' });
    await maakModelHouder(t.prisma, logMet().log).model();
    const l = logMet();
    const h = maakModelHouder(t.prisma, l.log);
    const laden = h.laad();
    const vers = h.vernieuw();
    expect(vers).not.toBe(laden);
    await Promise.all([laden, vers]);
    expect(l.regels.map((r) => r.msg).filter((m) => /^waardemodel (geladen|gebouwd)$/.test(m))).toEqual(['waardemodel geladen', 'waardemodel gebouwd']);
    expect(h.staat()?.uitOpslag).toBe(false);
    // A second vernieuw() while that fit runs shares it.
    const a = h.vernieuw();
    expect(h.vernieuw()).toBe(a);
    await a;
  }, 180_000);
});

describe(`insight waardemodel bouwen (${dialect})`, { timeout: 300_000 }, () => {
  const cli = useCliDatabase('waardemodel');

  it('loads the demo town as the server would (DEMO_PLAATS), fits both parts and stores them; a wrong action is a Dutch error', async () => {
    // The demo town first, so the server's first start finds the vintage the stored model was fitted on.
    expect(await cli.insight('waardemodel', 'bouwen')).toMatchObject({ verkopen: 7120, perDeel: { demo: 7120, register: 0 } });
    const db = await openDatabase({ databaseUrl: cli.databaseUrl(), dataDir: cli.dataDir() });
    try {
      const blokken = await db.prisma.waardemodelBlok.findMany({ select: { deel: true, versie: true } });
      expect(new Set(blokken.map((b) => b.deel))).toEqual(new Set(['demo', 'register']));
      expect(blokken.every((b) => b.versie === modelCodeVersie())).toBe(true);
    } finally {
      await db.close();
    }
    await expect(cli.insight('waardemodel', 'weg')).rejects.toMatchObject({ stderr: expect.stringMatching(/onbekende actie 'weg': kies bouwen/) });
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('a restarted server loads the model its first start stored (postgres)', () => {
  let db: TestDatabase;
  let server: ServerProces | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    await applyMigrations(db.migratieAdapterFactory);
    await maakVerkopen(db.prisma, { lat: 52.1, lon: 5.1, n: 900, van: '2021-01-01', tot: '2026-10-31' });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.close();
  });

  it('fits and stores at the first start, loads at the second', async () => {
    // /readyz can answer before the log line written just before it has come through the pipe.
    const eerste = await startServer(db.url, { LOG_LEVEL: 'info' });
    server = eerste;
    await vi.waitFor(() => expect(eerste.uitvoer()).toMatch(/"msg":"waardemodel gebouwd"/), { timeout: 10_000 });
    await eerste.stop();
    const tweede = await startServer(db.url, { LOG_LEVEL: 'info' });
    server = tweede;
    await vi.waitFor(() => expect(tweede.uitvoer()).toMatch(/"uitOpslag":true,"msg":"waardemodel geladen"/), { timeout: 10_000 });
    expect(tweede.uitvoer()).not.toMatch(/"msg":"waardemodel gebouwd"/);
  }, 180_000);
});
