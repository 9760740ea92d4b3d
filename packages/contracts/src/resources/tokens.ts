// API tokens: bearer credentials scoped to one workspace.
import { listOf, NullableTimestamp, Ok, Timestamp, Uuid, WORKSPACE_WRITE_DENIALS } from '../common';
import type { Resource } from '../resource';

const apiTokenProperties = {
  id: Uuid,
  name: { type: 'string' },
  prefix: { type: 'string', description: 'the first characters of the value, to recognise it' },
  createdBy: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'name'],
    properties: { id: Uuid, name: { type: 'string' } },
  },
  createdAt: Timestamp,
  expiresAt: NullableTimestamp,
  lastUsedAt: NullableTimestamp,
} as const;

export const ApiToken = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'prefix', 'createdBy', 'createdAt', 'expiresAt', 'lastUsedAt'],
  properties: apiTokenProperties,
} as const;

export const ApiTokenList = listOf(ApiToken);

export const CreatedApiToken = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'prefix', 'createdBy', 'createdAt', 'expiresAt', 'lastUsedAt', 'token'],
  properties: {
    ...apiTokenProperties,
    token: { type: 'string', pattern: '^svc_', description: 'the value, shown this once: send it as `Authorization: Bearer <token>`' },
  },
} as const;

export const CreateTokenRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 64, pattern: '\\S', description: '1 to 64 characters, not only spaces' },
    expiresInDays: { type: 'integer', minimum: 1, maximum: 365, description: 'omit for a token that does not expire' },
  },
} as const;

export const TOKENS = {
  tag: { name: 'tokens', description: 'API tokens: bearer credentials scoped to one workspace' },
  schemas: { ApiToken, ApiTokenList, CreatedApiToken, CreateTokenRequest },
  operations: {
    listTokens: {
      method: 'get',
      path: '/v1/workspaces/{workspaceId}/tokens',
      tag: 'tokens',
      summary: 'API tokens of the workspace, without values (owner, admin: all; others: their own)',
      auth: 'any',
      permission: 'tokens.read',
      success: { status: 200, description: 'tokens not revoked, oldest first', schema: ApiTokenList },
    },
    createToken: {
      method: 'post',
      path: '/v1/workspaces/{workspaceId}/tokens',
      tag: 'tokens',
      summary: "Create an API token for this workspace, acting with the creator's role; the value is shown this once",
      description: 'Needs the session cookie: a token cannot mint tokens.',
      auth: 'session',
      permission: 'tokens.create',
      body: CreateTokenRequest,
      success: { status: 201, description: 'the token with its value', schema: CreatedApiToken },
      errors: { 403: WORKSPACE_WRITE_DENIALS },
    },
    revokeToken: {
      method: 'delete',
      path: '/v1/workspaces/{workspaceId}/tokens/{tokenId}',
      tag: 'tokens',
      summary: 'Revoke a token; it answers 401 from the next request on (developers: their own tokens)',
      auth: 'any',
      permission: 'tokens.revoke',
      success: { status: 200, description: 'revoked', schema: Ok },
      errors: { 403: ['forbidden'] },
    },
  },
} as const satisfies Resource;
