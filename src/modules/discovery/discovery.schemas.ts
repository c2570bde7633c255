import Type, { type Static } from 'typebox';

export const API_NAME = 'firmwatch API';

export const DiscoverySchema = Type.Object(
  {
    name: Type.Literal(API_NAME, { description: 'Names the API.' }),
    version: Type.Literal('v1'),
    environment: Type.String({
      description:
        'The environment of the valid API key sent with the request (`sandbox` for `svc_test_`, `live` for `svc_live_`), or `none` when no valid key was sent.',
    }),
    documentation: Type.String({ format: 'uri', description: 'The human-readable API reference.' }),
    openapi: Type.String({ format: 'uri', description: 'This API as an OpenAPI 3.1 document.' }),
  },
  { $id: 'Discovery', title: 'Discovery', additionalProperties: false },
);
export type Discovery = Static<typeof DiscoverySchema>;
