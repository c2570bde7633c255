import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema } from 'fastify';
import type { ProblemCode } from '../lib/problem.js';
import { WEBHOOKS_OPENAPI } from '../modules/webhooks/webhook.openapi.js';
import { type OperationExamples, withOperationExamples } from './operation-examples.js';
import { PROBLEM_TYPES, problemTypeUri } from './problems.js';

export const OPENAPI_VERSION = '1.1.0';

const DESCRIPTION = `Checks business tax identifiers (VAT numbers, US employer numbers, company registration numbers), searches company records, publishes country capabilities, monitors company records for changes with signed webhooks, and reports usage.

Four findings are kept separate and never merged into one verdict: format, registry match, tax authority and company legal status. Checks never call a live tax-authority service.

Keys starting \`svc_test_\` use the sandbox (deterministic fixtures for GB, DE and US, no credits); keys starting \`svc_live_\` use live processing.

Every error is an \`application/problem+json\` Problem; its \`code\` is the stable identifier to branch on.

AI agents can use every operation as a Model Context Protocol tool: Streamable HTTP at \`/mcp\` on this server's origin (beside \`/v1\`), with the same API key in the same header, the same scopes, idempotency and credits.`;

export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, Record<string, unknown>>>;
};

/**
 * Generates the OpenAPI document from the route schemas. Must be registered before any route.
 * Paths are documented relative to the server URL, which already ends in /v1, as in the contract.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'firmwatch API',
        version: OPENAPI_VERSION,
        description: DESCRIPTION,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key: `svc_test_...` for sandbox, `svc_live_...` for live.',
          },
        },
      },
      security: [{ bearerAuth: [] }],
      webhooks: WEBHOOKS_OPENAPI,
      tags: [
        { name: 'Discovery', description: 'What this API is and where its reference lives.' },
        { name: 'Checks', description: 'Identifier checks with four separate findings.' },
        { name: 'Companies', description: 'Company search and stored company snapshots.' },
        {
          name: 'Monitors',
          description: 'Company records watched for changes, rechecked at a cadence.',
        },
        {
          name: 'Monitoring events',
          description: 'Changes and operational events of monitors, delivered by signed webhooks.',
        },
        { name: 'Usage', description: 'Completed operations and billable units per period.' },
        {
          name: 'Countries',
          description: 'Which identifier types each country supports, and how they are checked.',
        },
      ],
    },
    // Name components after their $id (Problem, Discovery) rather than def-0, def-1.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    transform: ({ schema, url, route }) => ({
      schema: withSecurity(withIdempotencyKey(schema, route.config), route.config),
      url: url.replace(/^\/v1(?=\/|$)/, '') || '/',
    }),
  });
}

/**
 * Each operation's security comes from its route config, the same declaration the auth hook
 * enforces: public operations need nothing, the others a bearer key with one named scope.
 */
function withSecurity(
  schema: FastifySchema,
  config: { scope?: string; public?: boolean } | undefined,
): FastifySchema {
  if (!schema || schema.hide) return schema;
  if (config?.public) return { ...schema, security: [] };
  if (!config?.scope) return schema;
  const note = `Requires an API key with the scope \`${config.scope}\`.`;
  const described = schema as FastifySchema & { description?: string };
  return {
    ...schema,
    security: [{ bearerAuth: [config.scope] }],
    'x-required-scope': config.scope,
    description: described.description ? `${described.description}\n\n${note}` : note,
  } as FastifySchema;
}

/** The Idempotency-Key header is required wherever the idempotency hook requires it. */
function withIdempotencyKey(
  schema: FastifySchema,
  config: { idempotency?: string } | undefined,
): FastifySchema {
  if (!schema?.headers || !config?.idempotency) return schema;
  return { ...schema, headers: { ...(schema.headers as object), required: ['idempotency-key'] } };
}

/**
 * The served document: the generated one with the deployment's own server URL, and each
 * operation's examples and curl command (the modules' `<area>.examples.ts`).
 */
export function servedOpenApiDocument(
  app: FastifyInstance,
  baseUrl: string,
  examples: Record<string, OperationExamples> = {},
): OpenApiDocument {
  const generated = app.swagger() as unknown as OpenApiDocument;
  return {
    ...generated,
    paths: withOperationExamples(withOptionalEmptyBodies(generated.paths), examples, baseUrl),
    servers: [{ url: baseUrl }],
  };
}

/** Whether a JSON body schema accepts `{}`: an object schema that requires no property. */
function acceptsEmptyObject(schema: Record<string, unknown> | undefined): boolean {
  if (schema?.type !== 'object') return false;
  const required = schema.required as unknown[] | undefined;
  return (required?.length ?? 0) === 0 && ((schema.minProperties as number | undefined) ?? 0) === 0;
}

/**
 * @fastify/swagger marks every request body required, but a missing body is read as `{}`
 * (json-body.ts): where `{}` is a valid body (POST /monitors/{monitor_id}/run), the body may be
 * left out, and the document says so. A new copy: the generated document is cached.
 */
function withOptionalEmptyBodies(paths: OpenApiDocument['paths']): OpenApiDocument['paths'] {
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, operation]) => {
          const body = operation.requestBody as
            | { content?: Record<string, { schema?: Record<string, unknown> }> }
            | undefined;
          const schema = body?.content?.['application/json']?.schema;
          if (!body || !acceptsEmptyObject(schema)) return [method, operation];
          return [method, { ...operation, requestBody: { ...body, required: false } }];
        }),
      ),
    ]),
  );
}

export function problemTypeCatalogue(documentationUrl: string) {
  return (Object.keys(PROBLEM_TYPES) as ProblemCode[]).map((code) => ({
    code,
    type: problemTypeUri(documentationUrl, code),
    ...PROBLEM_TYPES[code],
  }));
}
