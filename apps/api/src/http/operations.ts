import {
  createValidators,
  OPERATIONS,
  reachesServer,
  type FieldError,
  type OperationId,
  type OperationSpec,
  type OperationValidator,
  type PathParamsOf,
  type QueryOf,
  type RequestBodyOf,
  type ResponseBodyOf,
} from '@slipway/contracts';
import { AppError, isPermission, type AccessService, type Actor, type AuthService, type WorkspaceAccess } from '@slipway/core';
import type { ReadCache } from '@slipway/db';
import express, { Router, type Request, type Response } from 'express';
import { readsFollowWrites } from './reads-follow-writes';
import { SESSION_COOKIE } from './session-cookie';
import { strictCharset } from './strict-text';

type Spec<K extends OperationId> = (typeof OPERATIONS)[K];

/** What a route handler receives: everything checked, nothing left to validate or authorize. */
export interface OperationContext<K extends OperationId> {
  /** The caller; null only on public operations. */
  actor: Spec<K>['auth'] extends 'public' ? null : Actor;
  /** Proof of access to the workspace of the path, on operations that name a permission. */
  access: Spec<K> extends { permission: string } ? WorkspaceAccess : null;
  body: RequestBodyOf<K>;
  /** The validated query string (coerced, defaults filled in); `{}` for operations without one. */
  query: QueryOf<K>;
  params: PathParamsOf<K>;
  req: Request;
  res: Response;
}

/** A handler returns the body to send, or (`success.streamed`) writes the response itself and returns nothing. */
export type Handler<K extends OperationId> = (
  ctx: OperationContext<K>,
) => Spec<K>['success'] extends { streamed: true } ? Promise<void> : Promise<ResponseBodyOf<K>> | ResponseBodyOf<K>;
export type HandlerTable = { [K in OperationId]?: Handler<K> };

/** A response that does not match the document (tests turn these into failures). */
export interface ContractViolation {
  operationId: OperationId;
  status: number;
  problems: FieldError[];
  body: unknown;
}

export interface OperationsDeps {
  /** The API's reads from memory: a request that changes something bypasses them and drops what it touched. */
  reads?: ReadCache | null;
  auth: AuthService;
  access: AccessService;
  handlers: HandlerTable;
  /** Origin that cookie-authenticated unsafe requests must come from. */
  publicOrigin: string;
  bodyLimitBytes: number;
  /** When set, every response is checked against the document and mismatches are reported here. */
  onContractViolation?: (v: ContractViolation) => void;
}

const UNSAFE = new Set(['post', 'put', 'patch', 'delete']);

/**
 * Mounts every operation of the document (but those served by routers of their own) on one router, mounted at
 * /v1. Each request passes the same steps, in this order: credentials (401), CSRF (403), content type, size and
 * JSON (415, 413, 400), path ids (404), the authorization layer (404 for what the caller cannot see, 403 for what
 * its role may not do, 403 in a suspended workspace), the body schema (400 with details), then the handler.
 * An operation without a handler stops start-up.
 */
export function operationsRouter(deps: OperationsDeps): Router {
  const router = Router();
  if (deps.reads) router.use(readsFollowWrites(deps.reads));
  const validators = createValidators();
  const parseJson = express.json({ limit: deps.bodyLimitBytes, type: 'application/json', strict: true, verify: strictCharset });

  for (const [operationId, specConst] of Object.entries(OPERATIONS) as [OperationId, OperationSpec][]) {
    const spec: OperationSpec = specConst;
    if (spec.custom) continue;
    const handler = deps.handlers[operationId] as Handler<OperationId> | undefined;
    if (!handler) throw new Error(`Operation ${operationId} (${spec.method.toUpperCase()} ${spec.path}) has no handler`);
    if (spec.permission && !isPermission(spec.permission)) throw new Error(`Operation ${operationId} names an unknown permission ${spec.permission}`);
    if (spec.permission && !spec.path.includes('{workspaceId}')) throw new Error(`Operation ${operationId} has a permission but no workspace`);
    if (!spec.path.startsWith('/v1/')) throw new Error(`Operation ${operationId} is not under /v1`);
    const validator = validators[operationId];
    const path = spec.path.slice('/v1'.length).replace(/\{([A-Za-z]+)\}/g, ':$1');

    router[spec.method](path, async (req: Request, res: Response) => {
      if (deps.onContractViolation) watchResponses(res, validator, deps.onContractViolation);
      // The workspace of the path is read along with the credential when it is well-formed (one query per request).
      const workspaceId = spec.permission && !validator.param(String(req.params.workspaceId)) ? String(req.params.workspaceId) : undefined;
      const actor = spec.auth === 'public' ? null : await authenticate(req, spec, deps.auth, workspaceId);
      checkOrigin(req, spec, actor, deps.publicOrigin);
      if (spec.rawBody) checkRawBody(req, res, spec.rawBody.contentType);
      const body = spec.body ? await readJson(req, res, parseJson) : undefined;
      for (const name of validator.pathParameters) {
        if (validator.param(String(req.params[name]), name)) throw new AppError('not_found', notFoundMessage(name));
      }
      const access =
        spec.permission && actor
          ? await deps.access.resolve(actor, String(req.params.workspaceId), spec.permission as Parameters<AccessService['resolve']>[2])
          : null;
      // Issue 31: while the workspace's server does not answer, nothing that would change what it runs is accepted.
      const unreachable = access?.workspace.nodeUnreachableSince;
      if (unreachable && reachesServer(spec)) {
        throw new AppError(
          'node_unreachable',
          `The workspace's server has not answered since ${unreachable.toISOString()}: its apps keep serving, but nothing can change there until it answers again. Nothing was changed; try again later`,
        );
      }
      if (spec.body) {
        const errors = validator.body(body);
        if (errors) throw new AppError('validation_failed', 'The request body is invalid', errors.map((e) => ({ ...e })));
      }
      const query = validator.query({ ...(req.query as Record<string, unknown>) });
      if ('errors' in query) throw new AppError('validation_failed', 'The query string is invalid', query.errors.map((e) => ({ ...e })));
      const result = await handler({ actor, access, body, query: query.value, params: req.params, req, res } as unknown as OperationContext<OperationId>);
      if (spec.success.streamed) return;
      res.status(spec.success.status).json(result);
    });
  }
  return router;
}

async function authenticate(req: Request, spec: OperationSpec, auth: AuthService, workspaceId: string | undefined): Promise<Actor> {
  const header = req.get('authorization');
  let actor: Actor | null;
  if (header !== undefined) {
    const match = /^Bearer +(\S+) *$/i.exec(header);
    actor = match ? await auth.authenticateBearer(match[1]!) : null;
    if (!actor) throw new AppError('unauthorized', 'The bearer token is unknown, revoked or expired');
  } else {
    const cookie = (req.cookies as Record<string, string | undefined> | undefined)?.[SESSION_COOKIE];
    if (!cookie) throw new AppError('unauthorized', 'Sign in first, or send an API token as a bearer credential');
    actor = await auth.authenticateSession(cookie, workspaceId);
    if (!actor) throw new AppError('unauthorized', 'The session is unknown, expired or signed out');
  }
  if (spec.auth === 'session' && actor.kind !== 'session') {
    throw new AppError('session_required', 'This operation needs the session cookie; API tokens are not accepted');
  }
  return actor;
}

/**
 * CSRF: a cookie rides along with any cross-site request, so an unsafe request authenticated by the cookie must
 * come from the public origin (Origin, or Referer when a client sends no Origin). On public unsafe operations
 * (login, signup) a foreign Origin is refused too, against login CSRF; clients that send none (CLIs) pass.
 */
function checkOrigin(req: Request, spec: OperationSpec, actor: Actor | null, publicOrigin: string): void {
  if (!UNSAFE.has(spec.method)) return;
  const origin = req.get('origin') ?? originOf(req.get('referer'));
  if (actor?.kind === 'session' || (spec.auth === 'public' && origin !== undefined)) {
    if (origin !== publicOrigin) throw new AppError('csrf_rejected', `Cookie-authenticated changes must come from ${publicOrigin}`);
  }
}

function originOf(referer: string | undefined): string | undefined {
  if (!referer) return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return 'null';
  }
}

const hasBody = (req: Request) =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/**
 * A raw body (a file) is read by the handler as a stream. Its Content-Type must be the operation's (415). When the
 * answer goes out before the body was read to its end (an error, 413 past the limit), the connection is closed
 * after the answer rather than reading megabytes nobody wants; the rest of the body is discarded meanwhile.
 */
function checkRawBody(req: Request, res: Response, contentType: string): void {
  res.once('close', () => {
    if (!req.complete) req.destroy();
  });
  const sent = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const original = res.writeHead.bind(res) as (...args: unknown[]) => Response;
  res.writeHead = ((...args: unknown[]) => {
    if (!req.complete && !res.headersSent) {
      res.setHeader('Connection', 'close');
      req.resume();
    }
    return original(...args);
  }) as typeof res.writeHead;
  if (sent !== contentType) throw new AppError('unsupported_media_type', `Send the body as ${contentType}`);
}

async function readJson(req: Request, res: Response, parse: ReturnType<typeof express.json>): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  if (!req.is('application/json')) throw new AppError('unsupported_media_type', 'Send the body as application/json');
  await new Promise<void>((resolve, reject) => parse(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
  return req.body;
}

function notFoundMessage(param: string): string {
  const what = param.replace(/Id$/, '').replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
  return `The ${what} was not found`;
}

function watchResponses(res: Response, validator: OperationValidator, report: (v: ContractViolation) => void): void {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    const problems = validator.response(res.statusCode, body);
    if (problems) report({ operationId: validator.operationId, status: res.statusCode, problems, body });
    return json(body);
  };
}
