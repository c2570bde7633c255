import Type, { type Static } from 'typebox';

export const API_NAME = 'firmwatch API';

export const DiscoverySchema = Type.Object(
  {
    name: Type.Literal(API_NAME, { description: 'Names the API.' }),
    version: Type.Literal('v1'),
    environment: Type.String({
      description:
        'The environment a request with the same Authorization header would run in: `sandbox` for a `svc_test_` key, `live` for a `svc_live_` key, `none` without a key.',
    }),
    documentation: Type.String({ format: 'uri', description: 'The human-readable API reference.' }),
    openapi: Type.String({ format: 'uri', description: 'This API as an OpenAPI 3.1 document.' }),
  },
  { $id: 'Discovery', title: 'Discovery', additionalProperties: false },
);
export type Discovery = Static<typeof DiscoverySchema>;
