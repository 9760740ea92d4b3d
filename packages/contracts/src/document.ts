import { COMPONENT_SCHEMAS, OPERATIONS, TAGS } from './api';
import { errorSchema } from './common';
import type { OperationSpec } from './resource';
import { markRequestText, TEXT_RULE_DESCRIPTION } from './text';

export const API_VERSION = '1.0.0';
const UNSAFE = new Set(['post', 'put', 'patch', 'delete']);

/** Path parameters that are GitHub's numeric ids (issue 16), not UUIDs: positive decimal integers. */
export const INTEGER_PATH_PARAMETERS: ReadonlySet<string> = new Set(['installationId']);

/** `{workspaceId}` → `workspaceId`, in order. Every path parameter of this API is a UUID, but INTEGER_PATH_PARAMETERS. */
export function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1]!);
}

/**
 * The errors an operation can answer, by status: its own plus those every operation of its kind shares
 * (credentials, CSRF, body parsing and validation, unknown ids, 500, 503 while a dependency restarts).
 */
export function operationErrors(op: OperationSpec): Map<number, string[]> {
  const errors = new Map<number, string[]>();
  const add = (status: number, ...codes: string[]) => {
    const list = errors.get(status) ?? [];
    for (const c of codes) if (!list.includes(c)) list.push(c);
    errors.set(status, list);
  };
  if (op.body) {
    add(400, 'invalid_json', 'validation_failed');
    add(413, 'payload_too_large');
    add(415, 'unsupported_media_type');
  }
  if (op.rawBody) {
    add(413, 'payload_too_large');
    add(415, 'unsupported_media_type');
  }
  if (op.query) add(400, 'validation_failed');
  if (op.auth !== 'public') add(401, 'unauthorized');
  if (op.auth === 'session') add(401, 'session_required');
  if (UNSAFE.has(op.method)) add(403, 'csrf_rejected');
  if (pathParameters(op.path).length > 0) add(404, 'not_found');
  for (const [status, codes] of Object.entries(op.errors ?? {})) add(Number(status), ...codes);
  if (reachesServer(op)) add(503, 'node_unreachable');
  add(500, 'internal');
  // Any operation may meet PostgreSQL or Redis restarting (the operation's own 503s come first).
  add(503, 'service_unavailable');
  return new Map([...errors.entries()].sort(([a], [b]) => a - b));
}

/** Replaces every object that is one of the named component schemas by a `$ref` to it. */
function refify(node: unknown, names: Map<object, string>, self?: object): unknown {
  if (Array.isArray(node)) return node.map((n) => refify(n, names));
  if (!node || typeof node !== 'object') return node;
  const name = names.get(node);
  if (name && node !== self) return { $ref: `#/components/schemas/${name}` };
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, refify(v, names)]));
}

let cached: Record<string, unknown> | undefined;

/** The OpenAPI 3.1 document: built once from OPERATIONS and the schemas, then frozen. */
export function openApiDocument(): Readonly<Record<string, unknown>> {
  if (cached) return cached;
  const names = new Map<object, string>(Object.entries(COMPONENT_SCHEMAS).map(([k, v]) => [v as object, k]));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [operationId, spec] of Object.entries(OPERATIONS) as [string, OperationSpec][]) {
    const responses: Record<string, unknown> = {};
    const headers: Record<string, unknown> = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
    responses[String(spec.success.status)] = {
      description: spec.success.description,
      headers: spec.success.setsCookie ? { ...headers, 'Set-Cookie': { $ref: '#/components/headers/Set-Cookie' } } : headers,
      content: { [spec.success.contentType ?? 'application/json']: { schema: refify(spec.success.schema, names) } },
    };
    for (const [status, other] of Object.entries(spec.otherResponses ?? {})) {
      responses[status] = { description: other.description, headers, content: { 'application/json': { schema: refify(other.schema, names) } } };
    }
    for (const [status, codes] of operationErrors(spec)) {
      responses[String(status)] = {
        description: codes.map((c) => `\`${c}\``).join(', '),
        headers: status === 429 || status === 503 ? { ...headers, 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : headers,
        content: { 'application/json': { schema: errorSchema(codes) } },
      };
    }
    const security = spec.auth === 'public' ? [] : spec.auth === 'session' ? [{ session: [] }] : [{ session: [] }, { bearer: [] }];
    paths[spec.path] ??= {};
    paths[spec.path]![spec.method] = {
      operationId,
      tags: [spec.tag],
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      ...(spec.permission ? { 'x-slipway-permission': spec.permission } : {}),
      security,
      ...(pathParameters(spec.path).length || spec.query
        ? {
            parameters: [
              ...pathParameters(spec.path).map((name) => ({
                name,
                in: 'path',
                required: true,
                schema: INTEGER_PATH_PARAMETERS.has(name) ? { type: 'integer', minimum: 1 } : { $ref: '#/components/schemas/Uuid' },
              })),
              ...queryParameters(spec.query),
            ],
          }
        : {}),
      ...(spec.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: refify(spec.body, names) } } } }
        : {}),
      ...(spec.rawBody
        ? {
            requestBody: {
              required: true,
              description: spec.rawBody.description,
              content: { [spec.rawBody.contentType]: { schema: { type: 'string', contentMediaType: spec.rawBody.contentType } } },
            },
          }
        : {}),
      responses,
    };
  }
  const schemas = Object.fromEntries(Object.entries(COMPONENT_SCHEMAS).map(([k, v]) => [k, refify(v, names, v)]));
  const document: Record<string, unknown> = {
    openapi: '3.1.0',
    info: {
      title: 'Slipway API',
      version: API_VERSION,
      description:
        'Self-hostable application hosting. Bodies are JSON; unknown fields are rejected (400 `validation_failed`, ' +
        '`details` lists each failing field). Errors answer `{ "error": { "code", "message", "details"? } }`. ' +
        'Every response carries `X-Request-Id`. Lists answer `{ "data": [...] }`. Timestamps are ISO 8601 UTC with ' +
        'milliseconds, ids are UUIDv7. Cookie-authenticated unsafe requests must carry `Origin` equal to the public origin ' +
        "(403 `csrf_rejected`). Another workspace's objects answer 404 `not_found`, never 403. JSON bodies are limited to 1 MB (413). " +
        TEXT_RULE_DESCRIPTION,
    },
    tags: TAGS,
    paths,
    components: {
      schemas,
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'svc_session', description: 'set by signup and login' },
        bearer: { type: 'http', scheme: 'bearer', description: 'an API token (`svc_…`), scoped to one workspace' },
      },
      headers: {
        'X-Request-Id': { description: 'echoed when the client sent a sane one, generated otherwise', schema: { type: 'string' } },
        'Retry-After': { description: 'seconds to wait', schema: { type: 'integer', minimum: 0 } },
        'Set-Cookie': { description: '`svc_session`', schema: { type: 'string' } },
      },
    },
  };
  markRequestText(document);
  cached = deepFreeze(document);
  return cached;
}

/** One OpenAPI query parameter per property of an operation's query schema. */
function queryParameters(query: object | undefined): object[] {
  if (!query) return [];
  const q = query as { properties?: Record<string, { description?: string }>; required?: string[] };
  return Object.entries(q.properties ?? {}).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return { name, in: 'query', required: q.required?.includes(name) ?? false, ...(description ? { description } : {}), schema: rest };
  });
}

/** JSON pointer of an operation's request-body schema inside the document. */
export function bodyPointer(spec: OperationSpec): string {
  return `#/paths/${escape(spec.path)}/${spec.method}/requestBody/content/application~1json/schema`;
}

/** JSON pointer of an operation's response schema for `status`. */
export function responsePointer(spec: OperationSpec, status: number, contentType = 'application/json'): string {
  return `#/paths/${escape(spec.path)}/${spec.method}/responses/${status}/content/${escape(contentType)}/schema`;
}

const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/**
 * Operations that change what a workspace's server runs (its apps, deployments, files, databases, backups, domains,
 * or the workspace's removal): while the control plane cannot reach that server they answer 503 `node_unreachable`
 * and change nothing (issue 31). Reads answer from what the control plane knows.
 */
export function reachesServer(op: Pick<OperationSpec, 'method' | 'path'>): boolean {
  return UNSAFE.has(op.method) && /^\/v1\/workspaces\/\{workspaceId\}(\/(apps|databases|domains|uploads)(\/|$)|$)/.test(op.path);
}
