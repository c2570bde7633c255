import type { FastifyInstance } from 'fastify';
import { IdempotencyKeyHeaders } from '../http/idempotency.js';
import { TOOLS, type ToolSpec } from './tools.js';

/** What a tool takes from the REST operation it runs, as Fastify registered it. */
interface RouteRecord {
  method: string;
  url: string;
  schema: {
    params?: object;
    querystring?: object;
    body?: object;
    response?: Record<string, unknown>;
  };
  config: { idempotency?: string };
}

export interface ToolDefinition {
  spec: ToolSpec;
  method: string;
  /** The route's path, with `:name` parameters. */
  path: string;
  pathParameters: string[];
  /** Arguments other than path parameters go to the JSON body (else to the query string). */
  hasBody: boolean;
  /** The operation needs an Idempotency-Key: the tool takes an optional `idempotency_key`. */
  idempotent: boolean;
  inputSchema: JsonSchemaObject;
  outputSchema: JsonSchemaObject;
}

export type JsonSchemaObject = { type: 'object'; [keyword: string]: unknown };

/** The optional argument of every tool whose operation changes state. */
export const IDEMPOTENCY_KEY_ARGUMENT = {
  ...IdempotencyKeyHeaders.properties['idempotency-key'],
  description:
    'Makes the call safe to retry: a call with the same key and the same arguments within 24 hours returns the first result instead of doing it again (a different call with a used key is an idempotency_key_reused error). Without it, every call is a new operation.',
} as const;

/**
 * Records every route with an operationId as Fastify registers it. Call before the routes are
 * registered; `definitions()` is ready once they are.
 */
export function collectOperations(app: FastifyInstance): {
  definitions(sharedSchemas: readonly object[]): ToolDefinition[];
} {
  const routes = new Map<string, RouteRecord>();
  app.addHook('onRoute', (route) => {
    const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
    if (!operationId || [route.method].flat().includes('HEAD')) return;
    routes.set(operationId, {
      method: [route.method].flat()[0] as string,
      url: route.url,
      schema: (route.schema ?? {}) as RouteRecord['schema'],
      config: (route.config ?? {}) as RouteRecord['config'],
    });
  });
  return {
    definitions(sharedSchemas) {
      const shared = new Map<string, object>();
      for (const schema of sharedSchemas) shared.set((schema as { $id: string }).$id, schema);
      return TOOLS.map((spec) => {
        const route = routes.get(spec.operationId);
        if (!route) throw new Error(`tool ${spec.name}: no operation ${spec.operationId}`);
        return toolDefinition(spec, route, shared);
      });
    },
  };
}

function toolDefinition(
  spec: ToolSpec,
  route: RouteRecord,
  shared: Map<string, object>,
): ToolDefinition {
  const pathParameters = [...route.url.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1] as string);
  const parts = [route.schema.params, route.schema.querystring, route.schema.body].filter(
    (part): part is object => part !== undefined,
  );
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const part of parts) {
    const object = plain(part) as { properties?: Record<string, unknown>; required?: string[] };
    Object.assign(properties, object.properties);
    required.push(...(object.required ?? []));
  }
  const idempotent = route.config.idempotency !== undefined;
  if (idempotent) properties.idempotency_key = IDEMPOTENCY_KEY_ARGUMENT;
  const success = Object.keys(route.schema.response ?? {}).find((status) => /^2\d\d$/.test(status));
  const response = success ? route.schema.response?.[success] : undefined;
  if (!response) throw new Error(`tool ${spec.name}: ${spec.operationId} has no success schema`);
  return {
    spec,
    method: route.method,
    path: route.url,
    pathParameters,
    hasBody: route.schema.body !== undefined,
    idempotent,
    // The REST operation validates the arguments again (with its own error pointers); this
    // schema tells an agent what to send.
    inputSchema: {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required: [...new Set(required)] } : {}),
      additionalProperties: false,
    },
    outputSchema: inlineRefs(plain(response), shared) as JsonSchemaObject,
  };
}

/** A schema as plain JSON (TypeBox's symbol-keyed metadata dropped). */
function plain(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema));
}

/**
 * An output schema that stands alone, as MCP wants it: every `$ref` to a shared schema (`Check`,
 * `Check#`) is replaced by that schema, and `$id`s are dropped so a schema inlined twice does not
 * declare its id twice.
 */
function inlineRefs(node: unknown, shared: Map<string, object>): unknown {
  if (Array.isArray(node)) return node.map((item) => inlineRefs(item, shared));
  if (!node || typeof node !== 'object') return node;
  const { $ref, $id: _id, ...rest } = node as Record<string, unknown>;
  if (typeof $ref === 'string') {
    const target = shared.get($ref.replace(/#$/, ''));
    if (!target) throw new Error(`unknown shared schema ${$ref}`);
    return {
      ...(inlineRefs(plain(target), shared) as object),
      ...(inlineRefs(rest, shared) as object),
    };
  }
  return Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [key, inlineRefs(value, shared)]),
  );
}
