import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ErrorBodySchema } from './schemas/common.ts';
import { ActionRead } from './actions/schemas.ts';
import { AgentRead } from './assistants/schemas.ts';
import { KnowledgeBaseSchema, KnowledgeSourceSchema } from './knowledge/schemas.ts';
import { NumberRead } from './numbers/schemas.ts';
import { SubaccountRead } from './subaccounts/schemas.ts';

// The OpenAPI 3.1 document is generated from the same TypeBox schemas that validate requests, so
// it cannot drift from what the server accepts. `/docs` renders it with Swagger UI, whose assets
// ship inside the npm package (nothing is fetched from the network).

export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  for (const schema of [
    ErrorBodySchema,
    AgentRead,
    ActionRead,
    NumberRead,
    SubaccountRead,
    KnowledgeBaseSchema,
    KnowledgeSourceSchema,
  ])
    app.addSchema(schema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parley API',
        version: '1.0.0',
        description:
          'The v2 voice and chat agent API. Every /v2 route takes `Authorization: Bearer <API key>`. ' +
          'Successes are `{"status":"ok","response":...}`; errors are `{"detail":{...}}` (see ErrorBody).',
      },
      servers: [{ url: publicUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  let document: unknown;
  app.get('/v2/openapi.json', { schema: { hide: true } }, async () => {
    document ??= defaultsAreOptional(app.swagger());
    return document;
  });
}

interface Parameter {
  required?: boolean;
  schema?: { default?: unknown };
}

/**
 * A query parameter with a default may be left out (validation fills it in), but the swagger
 * plugin lists it as required since the schema's object names it: say what the server accepts.
 */
function defaultsAreOptional<T extends { paths?: object }>(doc: T): T {
  for (const operations of Object.values(doc.paths ?? {}) as Record<string, { parameters?: Parameter[] }>[]) {
    for (const operation of Object.values(operations)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.schema?.default !== undefined) parameter.required = false;
      }
    }
  }
  return doc;
}
