/**
 * The OpenAPI 3.1 document, generated from the router by trpc-to-openapi and then aligned with the
 * contract: every error response is the `Fout` schema (trpc-to-openapi describes its own error shape),
 * and the documentation says which statuses each operation answers.
 */
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { Config } from '../config/env.ts';
import { appRouter } from '../core/router.ts';

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
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item as Record<string, { responses?: Record<string, { description?: string; content?: unknown }> }>)) {
      if (!op?.responses) continue;
      for (const [status, resp] of Object.entries(op.responses)) {
        if (Number(status) >= 400) {
          resp.content = { 'application/json': { schema: { $ref: '#/components/schemas/Fout' } } };
        }
      }
    }
  }
  return doc;
}
