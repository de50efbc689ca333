/** GET /app/verbruik.csv: the usage list's own procedure page by page (its session check and refusals), streamed: the browser saves it to disk. */
// For Dutch Excel (docs/web-app.md): a UTF-8 BOM, `;` between fields, times in Amsterdam's local time with offset.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../core/context.ts';
import { naarFout } from '../core/errors.ts';
import { isoAmsterdam } from '../domain/begrippen.ts';
import { createCallerFactory } from '../core/trpc.ts';
import { appWebRouter } from '../procedures/app/router.ts';
import { stuurFout } from './fout-antwoord.ts';

export const VERBRUIK_CSV_PAD = '/app/verbruik.csv';

export const VERBRUIK_CSV_KOP = [
  'verzoek_id',
  'tijdstip',
  'kanaal',
  'voorziening',
  'status',
  'credits',
  'gefactureerd_cent',
  'adres',
  'sleutel_voorvoegsel',
  'sleutel_naam',
] as const;

export const VERBRUIK_CSV_SCHEIDING = ';';
const BOM = '\ufeff';

const PAGINA = 500;

const createCaller = createCallerFactory(appWebRouter);

/** RFC 4180 field: quoted when it holds a separator, quote or line break; formulas neutralised for spreadsheets. */
export function csvVeld(v: string | number | null | undefined): string {
  let s = v === null || v === undefined ? '' : String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n;]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvRegel(r: Record<(typeof VERBRUIK_CSV_KOP)[number], string | number | null>): string {
  return VERBRUIK_CSV_KOP.map((k) => csvVeld(r[k])).join(VERBRUIK_CSV_SCHEIDING);
}

export function registerVerbruikExport(scope: FastifyInstance, webContext: (req: FastifyRequest, reply: FastifyReply) => Context): void {
  scope.get(VERBRUIK_CSV_PAD, async (req, reply) => {
    const lees = createCaller(webContext(req, reply)).verbruik.lijst;
    const invoer = { ...(req.query as object), per_pagina: PAGINA } as Parameters<typeof lees>[0];
    let deel: Awaited<ReturnType<typeof lees>>;
    try {
      deel = await lees(invoer);
    } catch (e) {
      const f = naarFout(e);
      if (f.intern) req.log.error({ err: e }, 'interne fout bij de verbruiksexport');
      return stuurFout(reply, f.status, f.fout, f.headers);
    }
    async function* regels(): AsyncGenerator<string> {
      yield `${BOM}${VERBRUIK_CSV_KOP.join(VERBRUIK_CSV_SCHEIDING)}\r\n`;
      for (;;) {
        yield deel.regels.map((r) => `${csvRegel({ ...r, tijdstip: isoAmsterdam(new Date(r.tijdstip)) })}\r\n`).join('');
        if (!deel.volgende) return;
        deel = await lees({ ...invoer, na: deel.volgende });
      }
    }
    const { van, tot } = invoer;
    const uit = Readable.from(regels());
    uit.on('error', (err) => req.log.error({ err }, 'verbruiksexport afgebroken'));
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="verbruik-${van}-${tot}.csv"`)
      .send(uit);
  });
}
