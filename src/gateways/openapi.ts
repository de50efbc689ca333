/** The OpenAPI 3.1 document from the router, every error response the contract's `Fout` schema. */
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { z } from 'zod';
import type { Config } from '../config/env.ts';
import { appRouter } from '../procedures/router.ts';
import type { Meta } from '../core/trpc.ts';
import { foutSoortVoorStatus } from '../core/errors.ts';
import { werkOpenApiAf } from './openapi-afwerking.ts';

/** Every operation: the database can be unreachable (503); one that takes input checks it (400). */
const STANDAARD_STATUSSEN = [401, 429, 500, 503];

function foutHeaders(status: number): Record<string, unknown> | undefined {
  const h = foutSoortVoorStatus(status)?.headers;
  if (!h) return undefined;
  return Object.fromEntries(Object.entries(h).map(([naam, d]) => [naam, { description: d.beschrijving, schema: { type: d.type ?? 'string' } }]));
}

type Schema = NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>[string];

const FOUT_SCHEMA: Schema = {
  type: 'object',
  description: 'Foutantwoord: één Nederlandstalige melding.',
  properties: { fout: { type: 'string', description: 'De melding, in het Nederlands.', examples: ['Ongeldige of ontbrekende sleutel.'] } },
  required: ['fout'],
  additionalProperties: false,
};

export function bouwOpenApiDocument(config: Config): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: 'Insight API',
    version: '1.0',
    description:
      'Eén oordeel per Nederlands adres: marktwaarde met bandbreedte en betrouwbaarheid, BAG-kenmerken, WOZ, energielabel, woningtype en omgevingsinvloeden. ' +
      'Authenticatie met een persoonlijke sleutel: `Authorization: Bearer pct_...`; sleutels, tegoed en verbruik beheer je in de [web-app](/app). Fouten zijn altijd `{"fout": "..."}`. ' +
        'Een testsleutel (`pct_test_...`, hoogstens 5 naast de 10 live sleutels) kost niets en beweegt het saldo niet, maar kent alleen de synthetische demogemeente Fictiedal (Verzonnenveen, Nergenshuizen) (postcodes met de letters SA, SD of SS; de voorbeelden bij elke opvraging zijn demo-adressen): elk ander adres geeft 404. Zijn antwoorden dragen `meta.test: true`, zijn webhook-gebeurtenissen `data.test: true`. Probeer de voorbeelden met een testsleutel: een live sleutel betaalt ook voor een demo-adres het gewone tarief. ' +
        'Een live sleutel kan een maandlimiet in credits hebben (per kalendermaand, Europe/Amsterdam; zetten in de web-app): een opvraging die er niet meer in past krijgt 402 met een eigen melding, zonder kosten, en de gebeurtenis `sleutel.limiet_bereikt` gaat één keer per maand uit. `GET /whoami` toont modus, limiet en wat er deze maand over is.',
    baseUrl: `${config.PUBLIC_BASE_URL.replace(/\/$/, '')}/api/v1`,
    docsUrl: '/docs',
    securitySchemes: { Bearer: { type: 'http', scheme: 'bearer', description: 'Een insight-sleutel: pct_...' } },
  });
  doc.components ??= {};
  doc.components.schemas ??= {};
  for (const naam of Object.keys(doc.components.schemas)) {
    if (naam.startsWith('error.')) delete doc.components.schemas[naam];
  }
  doc.components.schemas.Fout = FOUT_SCHEMA;
  // trpc-to-openapi shares one error response per status across operations (first description wins).
  for (const proc of Object.values(appRouter._def.procedures) as { _def: { meta?: Meta; inputs: unknown[] } }[]) {
    const o = proc._def.meta?.openapi;
    if (!o) continue;
    const op = (doc.paths?.[o.path] as Record<string, { responses?: Record<string, unknown> }> | undefined)?.[o.method.toLowerCase()];
    if (!op?.responses) continue;
    const eigen = (o.errorResponses ?? {}) as Record<number, string>;
    const invoer = proc._def.inputs.some((i) => !(i instanceof z.ZodVoid)) ? [400] : [];
    const statussen = [...new Set([...STANDAARD_STATUSSEN, ...invoer, ...Object.keys(eigen).map(Number)])].sort((a, b) => a - b);
    for (const status of Object.keys(op.responses)) if (Number(status) >= 400) delete op.responses[status];
    const ok = op.responses['200'] as { description?: string } | undefined;
    if (ok?.description === 'Successful response') ok.description = 'Gelukt.';
    for (const status of statussen) {
      const headers = foutHeaders(status);
      op.responses[status] = {
        description: eigen[status] ?? foutSoortVoorStatus(status)?.beschrijving,
        ...(headers ? { headers } : {}),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Fout' } } },
      };
    }
  }
  return werkOpenApiAf(doc, config);
}
