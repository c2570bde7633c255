import Type, { type Static } from 'typebox';

export const API_NAME = 'firmwatch API';

export const DiscoverySchema = Type.Object(
  {
    name: Type.Literal(API_NAME, { description: 'Names the API.' }),
    version: Type.Literal('v1'),
    environment: Type.Enum(['sandbox', 'live', 'none', 'unrecognized_key'], {
      description:
        'The environment of the valid API key sent with the request (`sandbox` for `svc_test_`, `live` for `svc_live_`); `none` when no key was sent; `unrecognized_key` when the Authorization header holds no valid key (mistyped, unknown, revoked, or not an API key). Discovery still answers 200: check this field (or the `Api-Key-Status` header) to test a key.',
    }),
    documentation: Type.String({ format: 'uri', description: 'The human-readable API reference.' }),
    openapi: Type.String({ format: 'uri', description: 'This API as an OpenAPI 3.1 document.' }),
  },
  { $id: 'Discovery', title: 'Discovery', additionalProperties: false },
);
export type Discovery = Static<typeof DiscoverySchema>;

export const API_KEY_STATUS_HEADER = 'Api-Key-Status';
