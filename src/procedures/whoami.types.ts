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
      voorvoegsel: z.string().describe("Zichtbaar voorvoegsel van de sleutel; begint met 'pct_' (een testsleutel met 'pct_test_')."),
      modus: z
        .enum(['live', 'test'])
        .describe(
          "'test' voor een testsleutel (pct_test_..., hoogstens 5 per account naast de 10 live sleutels): die kent alleen de adressen van de synthetische demoplaats, kost niets en beweegt het saldo niet; antwoorden en webhook-gebeurtenissen dragen test: true.",
        ),
      maandlimiet: z
        .object({
          credits: z.int().describe('Hoogstens zoveel credits per kalendermaand (Europe/Amsterdam) voor deze sleutel.'),
          verbruikt: z.int().describe('Deze kalendermaand al door deze sleutel verbruikt, in credits.'),
          resterend: z.int().describe('Wat de sleutel deze maand nog mag verbruiken, in credits; een opvraging die meer kost wordt geweigerd met 402.'),
          maand: z.string().describe('De kalendermaand, JJJJ-MM (Europe/Amsterdam).'),
        })
        .nullable()
        .describe('De maandlimiet van de sleutel, of null zonder limiet. Bereikt: 402 met een eigen melding, en één keer per maand de webhook-gebeurtenis sleutel.limiet_bereikt.'),
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
