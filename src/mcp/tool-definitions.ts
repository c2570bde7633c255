import type { FastifyInstance } from 'fastify';
import { IdempotencyKeyHeaders } from '../http/idempotency.js';
import { FORMAT_DESCRIPTION } from '../http/validation.js';
import type { Scope } from '../modules/accounts/scopes.js';
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
  config: { idempotency?: string; scope?: Scope };
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
  /** The scope the operation requires; none for a public one. */
  scope?: Scope;
  inputSchema: JsonSchemaObject;
  outputSchema: JsonSchemaObject;
}

export type JsonSchemaObject = { type: 'object'; [keyword: string]: unknown };

/** The optional argument of every tool whose operation changes state. */
// The header's pattern already states the length (8 to 128), so the bounds are not repeated.
const {
  minLength: _min,
  maxLength: _max,
  ...IDEMPOTENCY_KEY
} = IdempotencyKeyHeaders.properties['idempotency-key'];

export const IDEMPOTENCY_KEY_ARGUMENT = {
  ...IDEMPOTENCY_KEY,
  description:
    'Makes a retry safe: the same key and arguments within 24 hours return the first result.',
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
      const tools = TOOLS.map((spec) => {
        const route = routes.get(spec.operationId);
        if (!route) throw new Error(`tool ${spec.name}: no operation ${spec.operationId}`);
        return { spec, route };
      });
      // MCP has no schema a tool list shares, and the same Check or Monitor sits in the results of
      // many tools: each shared schema is spelled out in the first tool (in list order) whose
      // result holds it, and only named in the others.
      const owners = new Map<string, string>();
      for (const { spec, route } of tools) {
        for (const id of sharedIdsIn(successSchema(spec, route), shared)) {
          if (!owners.has(id)) owners.set(id, spec.name);
        }
      }
      return tools.map(({ spec, route }) => toolDefinition(spec, route, { shared, owners }));
    },
  };
}

interface SharedSchemas {
  /** Shared schemas by `$id`. */
  shared: Map<string, object>;
  /** The tool whose output schema spells a shared schema out, by `$id`. */
  owners: Map<string, string>;
}

function successSchema(spec: ToolSpec, route: RouteRecord): object {
  const success = Object.keys(route.schema.response ?? {}).find((status) => /^2\d\d$/.test(status));
  const response = success ? route.schema.response?.[success] : undefined;
  if (!response) throw new Error(`tool ${spec.name}: ${spec.operationId} has no success schema`);
  return response as object;
}

/** The `$id`s of the shared schemas a schema holds, at any depth (itself included). */
function sharedIdsIn(schema: unknown, shared: Map<string, object>, found = new Set<string>()) {
  if (!schema || typeof schema !== 'object') return found;
  const { $ref, $id } = schema as { $ref?: unknown; $id?: unknown };
  const id = typeof $ref === 'string' ? $ref.replace(/#$/, '') : $id;
  if (typeof id === 'string' && !found.has(id)) {
    found.add(id);
    sharedIdsIn(shared.get(id), shared, found);
  }
  for (const value of Object.values(schema)) sharedIdsIn(value, shared, found);
  return found;
}

function toolDefinition(
  spec: ToolSpec,
  route: RouteRecord,
  schemas: SharedSchemas,
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
  if (idempotent) properties.idempotency_key = plain(IDEMPOTENCY_KEY_ARGUMENT);
  return {
    spec,
    method: route.method,
    path: route.url,
    pathParameters,
    hasBody: route.schema.body !== undefined,
    idempotent,
    ...(route.config.scope ? { scope: route.config.scope } : {}),
    // The REST operation validates the arguments again (with its own error pointers); this
    // schema tells an agent what to send, every rule of it, with no reference to resolve.
    inputSchema: {
      type: 'object',
      properties: forAgents(properties, true),
      ...(required.length > 0 ? { required: [...new Set(required)] } : {}),
      additionalProperties: false,
    },
    outputSchema: resolveRefs(
      compact(plain(successSchema(spec, route)), false),
      schemas,
      spec.name,
    ) as JsonSchemaObject,
  };
}

/** A schema as plain JSON (TypeBox's symbol-keyed metadata dropped). */
function plain(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema));
}

/**
 * An input schema in words an agent reads: the API's `x-format` (the noun phrase its 422
 * messages use) becomes the description of a field that has none, and goes.
 */
function forAgents(node: unknown, propertyMap = false): unknown {
  if (Array.isArray(node)) return node.map((item) => forAgents(item));
  if (!node || typeof node !== 'object') return node;
  if (propertyMap) {
    return Object.fromEntries(
      Object.entries(node).map(([name, value]) => [name, forAgents(value)]),
    );
  }
  const { [FORMAT_DESCRIPTION]: format, ...rest } = node as Record<string, unknown>;
  if (typeof format === 'string' && rest.description === undefined) {
    rest.description = `${format.charAt(0).toUpperCase()}${format.slice(1)}.`;
  }
  // An object schema that names no property (metadata's free keys) needs no empty map.
  if (rest.properties && Object.keys(rest.properties).length === 0) delete rest.properties;
  return Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [key, forAgents(value, key === 'properties')]),
  );
}

/**
 * An output schema that stands alone, as MCP wants it: a `$ref` to a shared schema is replaced by
 * that schema, except one that another tool returns whole, which is named instead ("a Check, as
 * get_check returns it"); `$id`s are dropped so no id is declared twice.
 */
function resolveRefs(node: unknown, schemas: SharedSchemas, tool: string): unknown {
  if (Array.isArray(node)) return node.map((item) => resolveRefs(item, schemas, tool));
  if (!node || typeof node !== 'object') return node;
  const { $ref, $id, ...rest } = node as Record<string, unknown>;
  const id = typeof $ref === 'string' ? $ref.replace(/#$/, '') : typeof $id === 'string' ? $id : '';
  const owner = schemas.owners.get(id);
  if (owner && owner !== tool) {
    const named = `${/^[AEIOU]/.test(id) ? 'An' : 'A'} ${id} (see ${owner}).`;
    return { type: 'object', description: named };
  }
  if (typeof $ref === 'string') {
    const target = schemas.shared.get($ref.replace(/#$/, ''));
    if (!target) throw new Error(`unknown shared schema ${$ref}`);
    return {
      ...(resolveRefs(compact(plain(target), false), schemas, tool) as object),
      ...(resolveRefs(rest, schemas, tool) as object),
    };
  }
  return Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [key, resolveRefs(value, schemas, tool)]),
  );
}

/**
 * What an output schema keeps: the shape of the result (properties, types, enums, descriptions).
 * Which fields are always present, formats, bounds, patterns and closed objects are the API's
 * promises about what it sends, which the REST response schemas keep; an agent reads them in the
 * result itself.
 */
const RESPONSE_ONLY = new Set([
  FORMAT_DESCRIPTION,
  'additionalProperties',
  'description',
  'format',
  'maxItems',
  'maxLength',
  'maxProperties',
  'maximum',
  'minItems',
  'minLength',
  'minProperties',
  'minimum',
  'pattern',
  'propertyNames',
  'readOnly',
  'required',
  'title',
  'uniqueItems',
]);

function compact(node: unknown, propertyMap: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => compact(item, false));
  if (!node || typeof node !== 'object') return node;
  const kept = Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => propertyMap || !RESPONSE_ONLY.has(key))
      .map(([key, value]) => [key, compact(value, !propertyMap && key === 'properties')]),
  );
  if (propertyMap) return kept;
  // The shorter spellings of the same schema: a const needs no type, a union of bare types is a
  // list of types, an object without named properties needs no empty map.
  const { anyOf, properties, ...rest } = kept as Record<string, unknown>;
  if (rest.const !== undefined) delete rest.type;
  if (Array.isArray(anyOf) && anyOf.every((branch) => Object.keys(branch).join() === 'type')) {
    rest.type = anyOf.map((branch) => (branch as { type: string }).type);
  } else if (anyOf !== undefined) {
    rest.anyOf = anyOf;
  }
  if (properties !== undefined && Object.keys(properties as object).length > 0) {
    rest.properties = properties;
  }
  return rest;
}
