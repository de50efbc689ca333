/** Interactive documentation at /docs, rendered by Scalar from the same OpenAPI document. */
import type { FastifyInstance } from 'fastify';
import type { OpenAPIObject } from 'trpc-to-openapi';

export async function registerDocs(app: FastifyInstance, doc: OpenAPIObject) {
  const { default: scalar } = await import('@scalar/fastify-api-reference');
  await app.register(scalar, {
    routePrefix: '/docs',
    configuration: { title: 'Insight API', content: () => doc },
  });
}
