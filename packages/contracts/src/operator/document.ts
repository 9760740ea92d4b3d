// The operator API's OpenAPI 3.1 document (issue 32, decision 0037): servers, cordons, drains and workspace moves,
// served by the API process on a Unix socket only (apps/api/src/operator). A document of its own, apart from the
// public one: its callers are the control plane's operators, not users or workspace tokens, and nothing of it is
// reachable over the network. The committed copy is docs/operator-api.json (operator.spec.ts fails while it differs).
import { ErrorDetail, NullableTimestamp, Timestamp, Uuid, errorSchema } from '../common';

export const OPERATOR_API_VERSION = '1.0.0';

const NodeName = { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$', description: 'a server as it enrolled (slipway-agent join)' } as const;
const Millis = { type: 'integer', minimum: 0 } as const;
const Mb = { type: 'integer', minimum: 0 } as const;
const Capacity = { type: 'object', additionalProperties: false, required: ['cpuMillis', 'memoryMb'], properties: { cpuMillis: Millis, memoryMb: Mb } } as const;
const Resources = {
  type: 'object',
  additionalProperties: false,
  required: ['cpuMillis', 'memoryMb', 'diskMb'],
  properties: { cpuMillis: Millis, memoryMb: Mb, diskMb: Mb },
} as const;

const OperatorNode = {
  type: 'object',
  additionalProperties: false,
  description: 'A server: what placement counts on it, what runs there, and what it last measured. The items of `slipway-admin nodes --json`.',
  required: ['id', 'name', 'status', 'grpcAddress', 'publicIpv4', 'version', 'lastSeenAt', 'capacity', 'reserved', 'free', 'disk', 'cordoned', 'cordonedAt', 'unreachableSince', 'placed', 'certNotAfter', 'used'],
  properties: {
    id: Uuid,
    name: NodeName,
    status: { type: 'string', enum: ['online', 'offline'] },
    grpcAddress: { type: 'string', description: "the agent's host:port the control plane dials" },
    publicIpv4: { type: 'array', items: { type: 'string' } },
    version: { type: 'string', description: "the agent's version" },
    lastSeenAt: NullableTimestamp,
    capacity: { ...Capacity, description: 'what the server offers to placement' },
    reserved: { ...Capacity, description: 'what the workspaces placed there reserve' },
    free: { ...Capacity, description: 'capacity less reservations' },
    disk: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['totalMb', 'freeMb', 'reserveMb', 'low'],
      description: 'the data disk at the last health check; `low`: below its reserve, new builds, deployments and uploads are refused',
      properties: { totalMb: Mb, freeMb: Mb, reserveMb: Mb, low: { type: 'boolean' } },
    },
    cordoned: { type: 'boolean', description: 'no new workspace is placed there; what runs there runs on' },
    cordonedAt: NullableTimestamp,
    unreachableSince: { ...NullableTimestamp, description: 'since when its health checks fail; null: it answered the last one' },
    placed: {
      type: 'object',
      additionalProperties: false,
      required: ['workspaces', 'apps', 'databases', 'reservations'],
      description: 'live workspaces placed there, their apps, databases and reservations',
      properties: { workspaces: Millis, apps: Millis, databases: Millis, reservations: Millis },
    },
    certNotAfter: Timestamp,
    used: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['cpuMillis', 'memoryMb', 'diskMb', 'free', 'total', 'containers', 'at'],
      description: 'what the whole server used when its agent last measured (metrics.collect, every minute); null: never measured',
      properties: { cpuMillis: Millis, memoryMb: Mb, diskMb: Mb, free: Resources, total: Resources, containers: Millis, at: Timestamp },
    },
  },
} as const;

const Cordon = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'cordoned', 'cordonedAt'],
  properties: { name: NodeName, cordoned: { type: 'boolean' }, cordonedAt: NullableTimestamp },
} as const;

const MoveStep = {
  type: 'object',
  additionalProperties: false,
  required: ['step', 'outcome', 'sentence', 'at'],
  properties: {
    step: { type: 'string', description: 'check, copy-images, copy-folders, …, switch, routes, stop-source, catch-up-folders, clean-source (decision 0037)' },
    outcome: { type: 'string', description: 'done, failed, undone or skipped' },
    sentence: { type: 'string', description: 'what happened, as a sentence an operator can act on' },
    at: Timestamp,
  },
} as const;

const Move = {
  type: 'object',
  additionalProperties: false,
  description: 'A move of a workspace between servers with every step recorded so far. What `slipway-admin moves --json` prints.',
  required: ['id', 'workspace', 'workspaceId', 'from', 'to', 'state', 'reason', 'error', 'cancelRequested', 'attempts', 'steps', 'createdAt', 'startedAt', 'finishedAt'],
  properties: {
    id: Uuid,
    workspace: { type: 'string', description: "the workspace's slug when the move was asked" },
    workspaceId: Uuid,
    from: { type: 'string', description: 'the source server' },
    to: { type: 'string', description: 'the target server' },
    state: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled'] },
    reason: { type: 'string', enum: ['operator', 'drain'], description: 'who asked: an operator (move) or a drain of the source' },
    error: { type: ['string', 'null'], description: 'why it failed or was cancelled, or what a succeeded move left behind' },
    cancelRequested: { type: 'boolean', description: 'a cancel was asked: a running move stops before its next step (until its switch)' },
    attempts: { type: 'integer', minimum: 0 },
    steps: { type: 'array', items: MoveStep },
    createdAt: Timestamp,
    startedAt: NullableTimestamp,
    finishedAt: NullableTimestamp,
  },
} as const;

const Drain = {
  type: 'object',
  additionalProperties: false,
  required: ['node', 'cordoned', 'moves', 'unplaced'],
  properties: {
    node: NodeName,
    cordoned: { const: true },
    moves: { type: 'array', items: Move, description: 'the moves queued, in the order they run (one at a time)' },
    unplaced: {
      type: 'array',
      description: 'workspaces no other server can take now; they stay, each with the sentence why',
      items: { type: 'object', additionalProperties: false, required: ['workspace', 'reason'], properties: { workspace: { type: 'string' }, reason: { type: 'string' } } },
    },
  },
} as const;

const MoveRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['to'],
  properties: { to: { ...NodeName, description: 'the server to move the workspace to' } },
} as const;

const listOf = (items: object) => ({ type: 'object', additionalProperties: false, required: ['data'], properties: { data: { type: 'array', items } } }) as const;

export const OPERATOR_SCHEMAS = { OperatorNode, Cordon, Drain, Move, MoveStep, MoveRequest, ErrorDetail } as const;

/** The path parameters of the operator API: a server's name, a workspace's id or slug, a move's id. */
export const OPERATOR_PATH_PARAMETERS = {
  name: NodeName,
  idOrSlug: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$', description: "the workspace's id (a UUID) or its slug" },
  id: Uuid,
} as const;

export interface OperatorOperationSpec {
  method: 'get' | 'post';
  path: string;
  summary: string;
  description?: string;
  query?: { properties: Record<string, object>; additionalProperties: false };
  body?: object;
  success: { status: number; description: string; schema: object };
  /** The operation's own errors by status, beside the shared ones (operatorErrors). */
  errors?: Record<number, string[]>;
}

export const OPERATOR_OPERATIONS = {
  listNodes: {
    method: 'get',
    path: '/v1/nodes',
    summary: 'Servers, what runs there and what they measured (`slipway-admin nodes --json`)',
    success: { status: 200, description: 'every enrolled server, by name', schema: listOf(OperatorNode) },
  },
  cordonNode: {
    method: 'post',
    path: '/v1/nodes/{name}/cordon',
    summary: 'Stop placing new workspaces on a server (what runs there runs on; nothing moves)',
    success: { status: 200, description: 'the server, cordoned', schema: Cordon },
  },
  uncordonNode: {
    method: 'post',
    path: '/v1/nodes/{name}/uncordon',
    summary: 'Place new workspaces on a cordoned server again',
    success: { status: 200, description: 'the server, no longer cordoned', schema: Cordon },
  },
  drainNode: {
    method: 'post',
    path: '/v1/nodes/{name}/drain',
    summary: 'Cordon a server, then move every workspace on it, one at a time, to the server placement picks',
    description: 'Draining twice queues nothing twice: a workspace whose move off this server is unfinished keeps it. `GET /v1/moves` shows the progress.',
    success: { status: 202, description: 'the server cordoned, the moves queued and the workspaces that stay', schema: Drain },
  },
  moveWorkspace: {
    method: 'post',
    path: '/v1/workspaces/{idOrSlug}/move',
    summary: 'Move a workspace to another server (a job: `GET /v1/moves/{id}` shows its steps)',
    description: 'The last intent wins: queued moves of the workspace are cancelled, a running one is asked to stop.',
    body: MoveRequest,
    success: { status: 202, description: 'the move, queued', schema: Move },
    errors: { 409: ['invalid_state'] },
  },
  listMoves: {
    method: 'get',
    path: '/v1/moves',
    summary: 'Moves, newest first, with every step (`slipway-admin moves --json`)',
    query: {
      additionalProperties: false,
      properties: {
        limit: { type: 'integer', minimum: 1, maximum: 10_000, default: 50, description: 'at most this many' },
        workspace: { ...Uuid, description: "only the moves of the workspace with this id (moves outlive workspaces, so it is the id, not the slug)" },
      },
    },
    success: { status: 200, description: 'the moves', schema: listOf(Move) },
  },
  getMove: {
    method: 'get',
    path: '/v1/moves/{id}',
    summary: 'One move with every step, its outcome and sentence',
    success: { status: 200, description: 'the move', schema: Move },
  },
  cancelMove: {
    method: 'post',
    path: '/v1/moves/{id}/cancel',
    summary: 'Stop a move: a queued one at once, a running one before its next step (until its switch; after it the move completes)',
    success: { status: 200, description: 'the move: cancelled, or running with `cancelRequested`', schema: Move },
    errors: { 409: ['invalid_state'] },
  },
  getOperatorDocument: {
    method: 'get',
    path: '/v1/openapi.json',
    summary: 'This document',
    success: { status: 200, description: 'the OpenAPI 3.1 document of the operator API', schema: { type: 'object' } },
  },
} as const satisfies Record<string, OperatorOperationSpec>;

export type OperatorOperationId = keyof typeof OPERATOR_OPERATIONS;

export const operatorPathParameters = (path: string): (keyof typeof OPERATOR_PATH_PARAMETERS)[] =>
  [...path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1] as keyof typeof OPERATOR_PATH_PARAMETERS);

/** Every error an operation can answer, by status: its own and those every operation of its kind shares. */
export function operatorErrors(op: OperatorOperationSpec): Map<number, string[]> {
  const errors = new Map<number, string[]>();
  const add = (status: number, ...codes: string[]) => errors.set(status, [...new Set([...(errors.get(status) ?? []), ...codes])]);
  if (op.body) {
    add(400, 'invalid_json', 'validation_failed');
    add(413, 'payload_too_large');
    add(415, 'unsupported_media_type');
  }
  if (op.query) add(400, 'validation_failed');
  if (operatorPathParameters(op.path).length) add(404, 'not_found');
  for (const [status, codes] of Object.entries(op.errors ?? {})) add(Number(status), ...codes);
  add(500, 'internal');
  add(503, 'service_unavailable');
  return new Map([...errors.entries()].sort(([a], [b]) => a - b));
}

const names = new Map<object, string>(Object.entries(OPERATOR_SCHEMAS).map(([k, v]) => [v as object, k]));

/** Named schemas become `$ref`s (but the definition itself). */
function refify(node: unknown, self?: object): unknown {
  if (Array.isArray(node)) return node.map((n) => refify(n));
  if (!node || typeof node !== 'object') return node;
  const name = names.get(node);
  if (name && node !== self) return { $ref: `#/components/schemas/${name}` };
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, refify(v)]));
}

let cached: Readonly<Record<string, unknown>> | undefined;

/** The operator API's OpenAPI 3.1 document, built once and frozen. */
export function operatorApiDocument(): Readonly<Record<string, unknown>> {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [operationId, op] of Object.entries(OPERATOR_OPERATIONS) as [string, OperatorOperationSpec][]) {
    const responses: Record<string, unknown> = {
      [String(op.success.status)]: { description: op.success.description, content: { 'application/json': { schema: refify(op.success.schema) } } },
    };
    for (const [status, codes] of operatorErrors(op)) {
      responses[String(status)] = { description: codes.map((c) => `\`${c}\``).join(', '), content: { 'application/json': { schema: refify(errorSchema(codes)) } } };
    }
    const parameters = [
      ...operatorPathParameters(op.path).map((name) => ({ name, in: 'path', required: true, schema: OPERATOR_PATH_PARAMETERS[name] })),
      ...Object.entries(op.query?.properties ?? {}).map(([name, schema]) => {
        const { description, ...rest } = schema as { description?: string };
        return { name, in: 'query', required: false, ...(description ? { description } : {}), schema: rest };
      }),
    ];
    paths[op.path] ??= {};
    paths[op.path]![op.method] = {
      operationId,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: refify(op.body) } } } } : {}),
      responses,
    };
  }
  const document = {
    openapi: '3.1.0',
    info: {
      title: 'Slipway operator API',
      version: OPERATOR_API_VERSION,
      description:
        "The control plane's operator interface over HTTP (decision 0037): servers, cordons, drains and workspace moves, " +
        'the same actions and the same JSON as `slipway-admin`. Served by the API process on a Unix socket only ' +
        '(SLIPWAY_OPERATOR_SOCKET, default `<SLIPWAY_DATA_DIR>/operator.sock`), created mode 0600 and owned by the ' +
        "service's user: whoever may open it may read the control plane's environment file and run `slipway-admin` " +
        'anyway, so it is the same trust as the CLI; it has no credentials of its own and never listens on TCP. ' +
        'Example: `curl --unix-socket /var/lib/slipway/control/operator.sock http://operator/v1/nodes`. ' +
        'Bodies are JSON; unknown fields are refused (400 `validation_failed`, `details` lists each failing field). ' +
        'Errors answer `{ "error": { "code", "message", "details"? } }` with a sentence, as the public API: 404 ' +
        '`not_found` for a server, workspace or move that does not exist, 409 `invalid_state` for what is not possible ' +
        'now. Lists answer `{ "data": [...] }`, each item exactly what `slipway-admin … --json` prints.',
    },
    paths,
    components: { schemas: Object.fromEntries(Object.entries(OPERATOR_SCHEMAS).map(([k, v]) => [k, refify(v, v)])) },
  };
  cached = deepFreeze(JSON.parse(JSON.stringify(document)) as Record<string, unknown>);
  return cached;
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
