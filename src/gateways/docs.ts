/**
 * /docs, rendered by Scalar from the OpenAPI document. Everything it loads is served from here; no AI agent,
 * MCP generator, toolbar or telemetry. test/docs.test.ts checks this in Chromium.
 */
import type { FastifyInstance } from 'fastify';
import type { OpenAPIObject } from 'trpc-to-openapi';

export async function registerDocs(app: FastifyInstance, doc: OpenAPIObject) {
  const { default: scalar } = await import('@scalar/fastify-api-reference');
  await app.register(scalar, {
    routePrefix: '/docs',
    configuration: {
      title: 'Insight API — documentatie',
      metaData: { title: 'Insight API — documentatie', description: 'Eén oordeel per Nederlands adres: REST en MCP.' },
      content: () => doc,
      withDefaultFonts: false,
      agent: { disabled: true },
      mcp: { disabled: true },
      showDeveloperTools: 'never',
      telemetry: false,
      hideClientButton: false,
      authentication: { preferredSecurityScheme: 'Bearer' },
      persistAuth: false,
    },
  });
}
