// Health, readiness, the reference page and this document.
import type { Resource } from '../resource';

const BootId = { type: 'string', description: "this process start's id (a new one at every start): a script that started the API checks the answer comes from that process" } as const;

export const Health = { type: 'object', additionalProperties: false, required: ['ok', 'bootId'], properties: { ok: { type: 'boolean' }, bootId: BootId } } as const;

export const Readiness = {
  type: 'object',
  additionalProperties: false,
  required: ['ok', 'bootId', 'checks'],
  properties: {
    ok: { type: 'boolean' },
    bootId: BootId,
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
