/**
 * Whether an error means "PostgreSQL is not reachable right now" (restarting, shut down, network gone) rather than
 * a bug or a bad query. The API answers such errors 503 `service_unavailable`; the worker retries the job.
 * Errors arrive from node-postgres directly (the plain pool) or wrapped by Prisma's driver adapter, so the
 * error, its `cause` chain and Prisma's `meta` are all looked at.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  const stack: unknown[] = [err];
  while (stack.length) {
    const e = stack.pop();
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const o = e as { code?: unknown; originalCode?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: unknown };
    for (const code of [o.code, o.originalCode]) {
      if (typeof code !== 'string') continue;
      if (PG_UNAVAILABLE.test(code) || SOCKET_CODES.has(code) || PRISMA_UNREACHABLE.has(code)) return true;
    }
    if (typeof o.kind === 'string' && ADAPTER_KINDS.has(o.kind)) return true;
    if (typeof o.message === 'string' && MESSAGES.test(o.message)) return true;
    stack.push(o.cause, o.meta);
    if (o.meta && typeof o.meta === 'object') stack.push(...Object.values(o.meta as Record<string, unknown>));
  }
  return false;
}

/** SQLSTATE class 08 (connection exception), 57P01-57P03 (admin/crash shutdown, cannot connect now), 53300 (too many connections). */
const PG_UNAVAILABLE = /^(08[0-9A-Z]{3}|57P0[1-3]|53300)$/;
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);
/** Prisma's codes for an unreachable, timed out or closed database server. */
const PRISMA_UNREACHABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
/** @prisma/adapter-pg's error kinds for the same. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
/** node-postgres raises these as plain Errors without a code. */
const MESSAGES = /Connection terminated|terminating connection|timeout exceeded when trying to connect|the database system is (starting up|shutting down|in recovery mode)|Can't reach database server|Server has closed the connection|Client has encountered a connection error/i;
