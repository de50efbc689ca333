/**
 * The OpenAPI 3.1 document, generated from the router by trpc-to-openapi and then aligned with the
 * contract: every error response is the `Fout` schema (trpc-to-openapi describes its own error shape),
 * and the documentation says which statuses each operation answers.
 */
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { Config } from '../config/env.ts';
import { appRouter } from '../core/router.ts';
import type { Meta } from '../core/trpc.ts';
import { werkOpenApiAf } from './openapi-afwerking.ts';

const kop = (description: string, type: 'string' | 'integer' = 'string') => ({ description, schema: { type } });

/** Headers that carry part of an error's meaning. */
const FOUT_HEADERS: Record<number, Record<string, unknown>> = {
  401: { 'WWW-Authenticate': kop('Altijd `Bearer`.') },
  409: { 'Retry-After': kop('Seconden; alleen als het eerste verzoek met deze Idempotency-Key nog loopt.', 'integer') },
  429: {
    'Retry-After': kop('Seconden tot er weer ruimte is in het venster.', 'integer'),
    RateLimit: kop('Stand per beleid (IETF ratelimit-headers).'),
    'RateLimit-Policy': kop('Het geldende beleid.'),
  },
};

/** Statuses every protected operation can answer, whatever it does. */
const STANDAARD_FOUTEN: Record<number, string> = {
  401: 'Ongeldige of ontbrekende sleutel (`WWW-Authenticate: Bearer`).',
  429: 'Te veel verzoeken; zie `Retry-After`.',
  500: 'Interne fout; de melding is algemeen, de oorzaak wordt gelogd met het verzoek-id (`X-Request-Id`).',
};

const FOUT_SCHEMA = {
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
      'Authenticatie met een persoonlijke sleutel: `Authorization: Bearer pct_...`. Fouten zijn altijd `{"fout": "..."}`.',
    baseUrl: `${config.PUBLIC_BASE_URL.replace(/\/$/, '')}/api/v1`,
    docsUrl: '/docs',
    securitySchemes: { Bearer: { type: 'http', scheme: 'bearer', description: 'Een insight-sleutel: pct_...' } },
  });
  doc.components ??= {};
  doc.components.schemas ??= {};
  for (const naam of Object.keys(doc.components.schemas)) {
    if (naam.startsWith('error.')) delete doc.components.schemas[naam];
  }
  doc.components.schemas.Fout = FOUT_SCHEMA as never;
  // trpc-to-openapi shares one error response object per status across operations (first description
  // wins); rebuild each operation's error responses from its own meta, each pointing at `Fout`.
  for (const proc of Object.values(appRouter._def.procedures) as { _def: { meta?: Meta } }[]) {
    const o = proc._def.meta?.openapi;
    if (!o) continue;
    const op = (doc.paths?.[o.path] as Record<string, { responses?: Record<string, unknown> }> | undefined)?.[o.method.toLowerCase()];
    if (!op?.responses) continue;
    const beschrijvingen = { ...STANDAARD_FOUTEN, ...(o.errorResponses as Record<number, string> | undefined) };
    for (const status of Object.keys(op.responses)) if (Number(status) >= 400) delete op.responses[status];
    for (const [status, description] of Object.entries(beschrijvingen)) {
      op.responses[status] = {
        description,
        ...(FOUT_HEADERS[Number(status)] ? { headers: FOUT_HEADERS[Number(status)] } : {}),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Fout' } } },
      };
    }
  }
  return werkOpenApiAf(doc, config);
}
