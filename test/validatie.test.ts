import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';
import { appRouter } from '../src/procedures/router.ts';
import { naarFout } from '../src/core/errors.ts';
import { expectFout, lookup, LOOKUPS, saldo } from './support/http.ts';

/**
 * Validation must be identical on every gateway. trpc-to-openapi switches `coerce` on, at runtime and
 * for good (it mutates the shared schema), for every z.number/boolean/bigint/date it finds in an input
 * object it serves — unwrapping optional, nullable, default, prefault, lazy, arrays and enums, and
 * recursing into nested objects. A field like that would accept "12" over REST but, after the first REST
 * call, also `true` -> 1 over every other gateway. So no input field may be such a type.
 */
const DWINGBAAR = new Set(['number', 'boolean', 'bigint', 'date']);

type Zod = { _zod: { def: Record<string, any> } };
const soort = (s: Zod) => s._zod.def.type as string;

/** The field type trpc-to-openapi would coerce, with the same unwrapping it uses. */
function uitgepakt(s: Zod): Zod {
  let cur = s;
  for (let i = 0; i < 50; i++) {
    const d = cur._zod.def;
    if (d.type === 'array') cur = d.element;
    else if (d.type === 'nullable' || d.type === 'optional' || d.type === 'default' || d.type === 'prefault' || d.type === 'readonly' || d.type === 'catch' || d.type === 'nonoptional') cur = d.innerType;
    else if (d.type === 'lazy') cur = d.getter();
    else return cur;
  }
  return cur;
}

/** Paths of fields in this object schema (recursively) that trpc-to-openapi would coerce. */
function dwingbareVelden(schema: Zod, pad = ''): string[] {
  const out: string[] = [];
  const shape = (schema as unknown as { shape: Record<string, Zod> }).shape;
  for (const [naam, veld] of Object.entries(shape)) {
    const u = uitgepakt(veld);
    if (DWINGBAAR.has(soort(u))) out.push(`${pad}${naam}: ${soort(u)}`);
    else if (soort(u) === 'object') out.push(...dwingbareVelden(u, `${pad}${naam}.`));
    // Not coerced by trpc-to-openapi, but the same risk one level down: look inside unions too.
    else if (soort(u) === 'union') for (const o of u._zod.def.options as Zod[]) if (soort(uitgepakt(o)) === 'object') out.push(...dwingbareVelden(uitgepakt(o), `${pad}${naam}|`));
  }
  return out;
}

/** The top-level input as trpc-to-openapi sees it: optional/nullable/default and pipes unwrapped. */
function invoerObject(s: Zod): Zod | null {
  let cur = s;
  for (let i = 0; i < 50; i++) {
    const d = cur._zod.def;
    if (d.type === 'object') return cur;
    if (d.type === 'pipe') cur = soort(d.out) === 'transform' ? d.in : d.out;
    else if (['nullable', 'optional', 'default', 'prefault', 'readonly'].includes(d.type)) cur = d.innerType;
    else if (d.type === 'lazy') cur = d.getter();
    else return null;
  }
  return null;
}

describe('structural guard: no coercible field in any procedure input', () => {
  it('the guard finds what trpc-to-openapi would coerce (it can fail)', () => {
    const proef = z.object({
      a: z.number().optional(),
      b: z.object({ c: z.array(z.boolean()).nullable(), d: z.string() }),
      e: z.date().default(() => new Date()),
      f: z.string(),
      g: z.enum(['x', 'y']),
      h: z.lazy(() => z.bigint()),
    });
    expect(dwingbareVelden(proef as never).sort()).toEqual(['a: number', 'b.c: boolean', 'e: date', 'h: bigint']);
  });

  it('every input of every procedure is free of number/boolean/bigint/date fields', () => {
    // Every procedure trpc-to-openapi serves (meta.openapi; the MCP tools are among them). The web app's
    // procedures (`app.*`, /trpc only) have none: trpc-to-openapi never touches their schemas.
    const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { inputs: Zod[]; meta?: { openapi?: unknown; mcp?: unknown } } }>)
      .filter(([, p]) => p._def.meta?.openapi || p._def.meta?.mcp);
    expect(procedures.length).toBeGreaterThanOrEqual(6);
    const fouten: string[] = [];
    let objecten = 0;
    for (const [naam, p] of procedures) {
      for (const input of p._def.inputs ?? []) {
        const obj = invoerObject(input);
        if (!obj) continue;
        objecten++;
        for (const v of dwingbareVelden(obj)) fouten.push(`${naam}: ${v}`);
      }
    }
    expect(objecten).toBeGreaterThanOrEqual(5);
    expect(fouten).toEqual([]);
  });
});

describe(`behaviour: the same bad input is refused alike over REST and createCaller (${dialect})`, () => {
  let t: TestApp;
  let key: string;
  let accountId: string;
  let a: Awaited<ReturnType<typeof maakVolledigAdres>>;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '10000', RATE_LIMIT_INVLOEDEN_PER_MIN: '10000' });
    ({ key, accountId } = await t.klant(1000));
    a = await maakVolledigAdres(t.db.prisma);
    // One good REST request per lookup first: trpc-to-openapi coerces on its first use of a schema.
    for (const v of LOOKUPS) expect((await lookup(t, v, key, adresBody(a))).statusCode).toBe(200);
  });
  afterAll(async () => t?.close());

  const slecht = () => [
    { naam: 'huisnummer 0', body: { adres: { postcode: a.postcode, huisnummer: 0 } } },
    { naam: 'huisnummer as a fraction', body: { adres: { postcode: a.postcode, huisnummer: 12.5 } } },
    { naam: 'postcode as a number', body: { adres: { postcode: 1234, huisnummer: '12' } } },
    { naam: 'huisnummer as a boolean', body: { adres: { postcode: a.postcode, huisnummer: true } } },
    { naam: 'toevoeging as a number', body: { adres: { postcode: a.postcode, huisnummer: '12', toevoeging: 2 } } },
    { naam: 'adres as a string', body: { adres: `${a.postcode} 12` } },
  ];

  it.each(LOOKUPS)('%s: REST 400 and createCaller BAD_REQUEST with the same Dutch message', async (v) => {
    const voor = await saldo(t, accountId);
    const caller = t.caller(`Bearer ${key}`) as unknown as { inzicht: Record<string, (i: unknown) => Promise<unknown>> };
    for (const { naam, body } of slecht()) {
      const rest = expectFout(await lookup(t, v, key, body), 400, `${v} REST ${naam}`);
      let fout: unknown;
      try {
        await caller.inzicht[v](body);
      } catch (e) {
        fout = e;
      }
      expect(fout, `${v} createCaller ${naam}: geen fout`).toBeDefined();
      expect((fout as { code?: string }).code, `${v} createCaller ${naam}`).toBe('BAD_REQUEST');
      const f = naarFout(fout);
      expect(f.status, `${v} ${naam}`).toBe(400);
      expect(f.fout, `${v} ${naam}`).toBe(rest);
    }
    expect(await saldo(t, accountId)).toBe(voor);
  });

  it('a house number sent as an integer gets the same answer as the documented text form; 0 gets the range message', async () => {
    const alsTekst = (await lookup(t, 'woz', key, adresBody(a))).json();
    const alsGetal = await lookup(t, 'woz', key, { adres: { postcode: a.postcode, huisnummer: a.huisnummer } });
    expect(alsGetal.statusCode, alsGetal.body).toBe(200);
    expect(alsGetal.json().data).toStrictEqual(alsTekst.data);
    expect(expectFout(await lookup(t, 'woz', key, { adres: { postcode: a.postcode, huisnummer: 0 } }), 400)).toMatch(/1 tot en met 99999/);
    expect(expectFout(await lookup(t, 'woz', key, { adres: { postcode: a.postcode, huisnummer: '0' } }), 400)).toMatch(/1 tot en met 99999/);
  });

  it('a house number with a letter or addition says where that goes: in toevoeging', async () => {
    const gevallen: [string, string][] = [['9a', 'huisnummer 9 en toevoeging A'], ['1-2', 'huisnummer 1 en toevoeging -2'], ['3 bis', 'huisnummer 3 en toevoeging BIS'], ['12 A-2', 'huisnummer 12 en toevoeging A-2']];
    for (const [huisnummer, voorbeeld] of gevallen) {
      const fout = expectFout(await lookup(t, 'woz', key, { adres: { postcode: a.postcode, huisnummer } }), 400);
      expect(fout, huisnummer).toBe(`Ongeldige invoer: adres.huisnummer: ongeldig huisnummer: verwacht een geheel getal van 1 tot en met 99999; zet de huisletter of toevoeging in \`toevoeging\`, bijvoorbeeld ${voorbeeld}.`);
    }
    // No number with an addition: the range message alone.
    for (const huisnummer of ['abc', '123456', '0a', '12.5']) {
      expect(expectFout(await lookup(t, 'woz', key, { adres: { postcode: a.postcode, huisnummer } }), 400), huisnummer).toMatch(/99999\.$/);
    }
  });

  it('a good input is accepted alike over both', async () => {
    const caller = t.caller(`Bearer ${key}`);
    const viaCaller = await caller.inzicht.woz(adresBody(a) as never);
    const viaRest = (await lookup(t, 'woz', key, adresBody(a))).json();
    expect(viaCaller.data).toStrictEqual(viaRest.data);
  });
});
