// The OpenAPI document and the running routes agree: no route the document lacks, no operation without a route,
// and every error code the document names answers the status the error table gives it.
import { createLogger } from '@slipway/config';
import { OPERATIONS, openApiDocument, operationErrors, type OperationSpec } from '@slipway/contracts';
import { ERROR_CODES, isPermission } from '@slipway/core';
import { createDb, createSqlPool } from '@slipway/db';
import { RecordingJobQueue } from '@slipway/testing';
import { TEST_APPS_DOMAIN, TEST_ENCRYPTION_KEY } from '@slipway/testing/api';
import type { Express } from 'express';
import Redis from 'ioredis';
import { createApp } from './app';
import { ERROR_STATUS } from './http/error-status';
import { apiRouter, createServices } from './services';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
  rawPath?: string;
}

/** Every (METHOD path) the Express app answers, found by walking its router stack. */
function routesOf(app: Express): string[] {
  const out: string[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const m of Object.keys(layer.route.methods)) if (m !== '_all') out.push(`${m.toUpperCase()} ${prefix}${layer.route.path}`);
      } else if (layer.handle.stack) {
        walk(layer.handle.stack, prefix + (layer.rawPath === '/' ? '' : (layer.rawPath ?? '')));
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return out.sort();
}

describe('the OpenAPI document and the routes', () => {
  const db = createDb('postgresql://nobody@127.0.0.1:1/none');
  const sql = createSqlPool('postgresql://nobody@127.0.0.1:1/none');
  const redis = new Redis('redis://127.0.0.1:1', { lazyConnect: true });
  afterAll(async () => {
    redis.disconnect();
    await db.$disconnect();
    await sql.end();
  });

  it('describe exactly the same endpoints', () => {
    const logger = createLogger('test', 'silent');
    const services = createServices({ db, sql, redis, jobs: new RecordingJobQueue(), logger, sessionKey: 'k'.repeat(32), redisPrefix: 't', encryptionKey: TEST_ENCRYPTION_KEY, appsDomain: TEST_APPS_DOMAIN });
    const app = createApp({
      logger,
      readiness: [],
      v1: [apiRouter(services, { publicOrigin: 'http://x', secureCookies: false, bodyLimitBytes: 1024 })],
    });
    const documented = Object.entries(openApiDocument().paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{([A-Za-z]+)\}/g, ':$1')}`))
      .sort();
    expect(routesOf(app)).toEqual(documented);
  });

  it('gives every error code the status of the error table, and names only known codes', () => {
    for (const [id, spec] of Object.entries(OPERATIONS) as [string, OperationSpec][]) {
      for (const [status, codes] of operationErrors(spec)) {
        for (const code of codes) {
          expect({ id, code, known: (ERROR_CODES as readonly string[]).includes(code) }).toEqual({ id, code, known: true });
          expect({ id, code, status: ERROR_STATUS[code as keyof typeof ERROR_STATUS] }).toEqual({ id, code, status });
        }
      }
    }
  });

  it('names a known permission on every workspace operation, and only there', () => {
    const entries = Object.entries(OPERATIONS) as [string, OperationSpec][];
    const scoped = entries.filter(([, spec]) => spec.path.includes('{workspaceId}'));
    const unscoped = entries.filter(([, spec]) => !spec.path.includes('{workspaceId}'));
    expect(scoped.map(([id, spec]) => ({ id, known: isPermission(String(spec.permission)) }))).toEqual(scoped.map(([id]) => ({ id, known: true })));
    expect(unscoped.map(([id, spec]) => ({ id, permission: spec.permission }))).toEqual(unscoped.map(([id]) => ({ id, permission: undefined })));
  });

  it('is OpenAPI 3.1 with an operationId, a summary and security on every operation', () => {
    const doc = openApiDocument() as { openapi: string; paths: Record<string, Record<string, { operationId: string; summary: string; security: unknown[] }>> };
    expect(doc.openapi).toBe('3.1.0');
    const ops = Object.values(doc.paths).flatMap((p) => Object.values(p));
    expect(ops).toHaveLength(Object.keys(OPERATIONS).length);
    const tags = (doc as unknown as { tags: { name: string }[] }).tags.map((t) => t.name);
    for (const op of ops) {
      expect((op as unknown as { tags: string[] }).tags.every((t) => tags.includes(t))).toBe(true);
      expect(op.operationId).toEqual(expect.any(String));
      expect(op.summary.length).toBeGreaterThan(5);
      expect(Array.isArray(op.security)).toBe(true);
    }
    // Every $ref resolves inside the document.
    const components = (doc as unknown as { components: Record<string, Record<string, unknown>> }).components;
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/(\w+)\/([\w-]+)"/g)];
    expect(refs.length).toBeGreaterThan(20);
    for (const [, kind, name] of refs) expect(`${kind}/${name}: ${components[kind!]?.[name!] !== undefined}`).toBe(`${kind}/${name}: true`);
  });
});
