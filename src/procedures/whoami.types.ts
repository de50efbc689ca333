import { z } from 'zod';
import { accountMetaSchema } from '../core/schema.ts';

export const saldoSchema = z
  .object({
    credits: z.int().describe('Credits over op het account.'),
    eenheid_cent: z.int().describe('Waarde van één credit in centen (5).'),
    tegoed_cent: z.int().describe('Tegoed in centen (credits x eenheid_cent).'),
  })
  .meta({ id: 'Saldo' });

export const whoamiOutput = z
  .object({
    data: z.object({
      naam: z.string().describe('Naam van de sleutel.'),
      familie: z.string().describe("Sleutelfamilie: 'inzicht' of 'beheer'."),
      voorvoegsel: z.string().describe("Zichtbaar voorvoegsel van de sleutel; begint met 'pct_'."),
      rechten: z.array(z.string()),
      bereik: z.literal('account'),
      verloopt_op: z.string().describe('Vervaldatum, ISO 8601 met offset.'),
      saldo: saldoSchema,
    }),
    meta: accountMetaSchema,
  })
  .meta({ id: 'Whoami' });

import type { Meta } from '../core/trpc.ts';

export const whoamiMeta: Meta = {
  openapi: {
    method: 'GET' as const,
    path: '/whoami',
    protect: true,
    tags: ['account'],
    summary: 'Beschrijving van de sleutel en het saldo van het account',
    description: 'Gratis; werkt ook met een leeg saldo en met elke geldige sleutel (beide families).',
  },
};
