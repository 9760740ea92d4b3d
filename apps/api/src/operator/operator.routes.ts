// The operator API (issue 32, decision 0037): servers, cordons, drains and workspace moves over HTTP, the same
// actions and JSON as `slipway-admin`, both through OperatorService of @slipway/core. Served on a Unix socket only
// (operator.socket.ts): no credentials of its own, the socket file's mode is the access rule.
import {
  createOperatorValidators,
  OPERATOR_OPERATIONS,
  operatorApiDocument,
  type OperatorOperationId,
  type OperatorOperationSpec,
  type OperatorValidator,
} from '@slipway/contracts';
import { AppError, MoveService, OperatorService, systemClock, type Clock, type JobQueue } from '@slipway/core';
import { createAgentRepositories, createJobStores, nodeUsages, type Db } from '@slipway/db';
import express, { type Express, type Request, type Response } from 'express';
import type { Logger as Pino } from 'pino';
import { errorHandler } from '../http/errors';
import { requestLog } from '../http/request-log';
import { strictCharset } from '../http/strict-text';

/** OperatorService over the control plane's PostgreSQL and job queue: the same wiring as `slipway-admin`'s. */
export function createOperatorService(deps: { db: Db; jobs: JobQueue; clock?: Clock }): OperatorService {
  const stores = createJobStores(deps.db);
  const nodes = createAgentRepositories(deps.db).nodes;
  const clock = deps.clock ?? systemClock;
  return new OperatorService({
    nodes,
    usages: () => nodeUsages(deps.db),
    moves: new MoveService({ moves: stores.moves, workspaces: stores.moveWorkspaces, nodes, jobs: deps.jobs, clock }),
    clock,
  });
}

/** What one operation does with its checked input. */
type OperatorHandler = (input: { params: Record<string, string>; query: Record<string, unknown>; body: unknown }) => Promise<unknown>;

export interface OperatorAppDeps {
  operator: OperatorService;
  logger: Pino;
  /** When set, every answer is checked against the operator document and mismatches are reported (tests). */
  onContractViolation?: (v: { operationId: OperatorOperationId; status: number; problems: unknown[]; body: unknown }) => void;
}

const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * The operator API as an Express app: every operation of the operator document with its handler, in the order the
 * public API checks a request (content type, size and JSON: 415, 413, 400; path parameters: 404; body and query:
 * 400 with details), errors in the public API's shape; anything else answers 404 `not_found`.
 */
export function createOperatorApp(deps: OperatorAppDeps): Express {
  const { operator } = deps;
  const handlers: Record<OperatorOperationId, OperatorHandler> = {
    listNodes: async () => ({ data: await operator.nodes() }),
    cordonNode: ({ params }) => operator.cordon(params.name!, true),
    uncordonNode: ({ params }) => operator.cordon(params.name!, false),
    drainNode: ({ params }) => operator.drain(params.name!),
    moveWorkspace: ({ params, body }) => operator.move(params.idOrSlug!, (body as { to: string }).to),
    listMoves: async ({ query }) => ({ data: await operator.moves({ limit: query.limit as number, ...(query.workspace ? { workspaceId: query.workspace as string } : {}) }) }),
    getMove: ({ params }) => operator.get(params.id!),
    cancelMove: ({ params }) => operator.cancel(params.id!),
    getOperatorDocument: () => Promise.resolve(operatorApiDocument()),
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.locals.logger = deps.logger;
  app.use(requestLog(deps.logger));
  const parseJson = express.json({ limit: BODY_LIMIT_BYTES, type: 'application/json', strict: true, verify: strictCharset });
  const validators = createOperatorValidators();
  for (const [operationId, spec] of Object.entries(OPERATOR_OPERATIONS) as [OperatorOperationId, OperatorOperationSpec][]) {
    const validator = validators[operationId];
    const handler = handlers[operationId];
    app[spec.method](spec.path.replace(/\{([A-Za-z]+)\}/g, ':$1'), async (req: Request, res: Response) => {
      if (deps.onContractViolation) watchResponses(res, validator, deps.onContractViolation);
      const body = spec.body ? await readJson(req, res, parseJson) : undefined;
      const params: Record<string, string> = {};
      for (const name of validator.pathParameters) {
        const value = String(req.params[name]);
        if (validator.param(name, value)) throw new AppError('not_found', notFoundSentence(name, value));
        params[name] = value;
      }
      if (spec.body) {
        const errors = validator.body(body);
        if (errors) throw new AppError('validation_failed', 'The request body is invalid', errors.map((e) => ({ ...e })));
      }
      const query = validator.query({ ...(req.query as Record<string, unknown>) });
      if ('errors' in query) throw new AppError('validation_failed', 'The query string is invalid', query.errors.map((e) => ({ ...e })));
      res.status(spec.success.status).json(await handler({ params, query: query.value, body }));
    });
  }
  app.use((_req, _res, next) => next(new AppError('not_found', 'No such endpoint of the operator API (GET /v1/openapi.json lists them)')));
  app.use(errorHandler);
  return app;
}

/** A malformed path parameter names nothing that exists: the same 404 sentence as a well-formed unknown one. */
function notFoundSentence(name: string, value: string): string {
  if (name === 'name') return `No server is enrolled as "${value}"`;
  if (name === 'idOrSlug') return `No live workspace has the id or slug "${value}"`;
  return `No move has the id ${value}`;
}

const hasBody = (req: Request) =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

async function readJson(req: Request, res: Response, parse: ReturnType<typeof express.json>): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  if (!req.is('application/json')) throw new AppError('unsupported_media_type', 'Send the body as application/json');
  await new Promise<void>((resolve, reject) => parse(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
  return req.body;
}

function watchResponses(res: Response, validator: OperatorValidator, report: NonNullable<OperatorAppDeps['onContractViolation']>): void {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    // What goes on the wire: Dates as ISO strings.
    const sent = JSON.parse(JSON.stringify(body)) as unknown;
    const problems = validator.response(res.statusCode, sent);
    if (problems) report({ operationId: validator.operationId, status: res.statusCode, problems, body: sent });
    return json(body);
  };
}
