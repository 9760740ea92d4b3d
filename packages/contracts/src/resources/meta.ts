// Health, readiness, the reference page and this document.
import type { Resource } from '../resource';

export const Health = { type: 'object', additionalProperties: false, required: ['ok'], properties: { ok: { type: 'boolean' } } } as const;

export const Readiness = {
  type: 'object',
  additionalProperties: false,
  required: ['ok', 'checks'],
  properties: {
    ok: { type: 'boolean' },
    checks: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'ok'],
        properties: { name: { type: 'string' }, ok: { type: 'boolean' }, error: { type: 'string' } },
      },
    },
  },
} as const;

export const OpenApiDocument = { type: 'object', description: 'this document' } as const;

export const META = {
  tag: { name: 'meta', description: 'health, readiness and this document' },
  schemas: { Health, Readiness },
  operations: {
    getHealth: {
      method: 'get',
      path: '/healthz',
      tag: 'meta',
      summary: 'The process is up',
      auth: 'public',
      custom: true,
      success: { status: 200, description: 'alive', schema: Health },
    },
    getReadiness: {
      method: 'get',
      path: '/readyz',
      tag: 'meta',
      summary: 'Every dependency answers (database, Redis, agents)',
      auth: 'public',
      custom: true,
      success: { status: 200, description: 'ready', schema: Readiness },
      otherResponses: { 503: { description: 'a dependency does not answer; `checks` names it', schema: Readiness } },
    },
    getReference: {
      method: 'get',
      path: '/docs',
      tag: 'meta',
      summary: 'This reference as a readable page (served from local files)',
      auth: 'public',
      custom: true,
      success: { status: 200, description: 'an HTML page', schema: { type: 'string' }, contentType: 'text/html' },
    },
    getOpenApiDocument: {
      method: 'get',
      path: '/v1/openapi.json',
      tag: 'meta',
      summary: 'This document',
      auth: 'public',
      success: { status: 200, description: 'the OpenAPI 3.1 document', schema: OpenApiDocument },
    },
  },
} as const satisfies Resource;
