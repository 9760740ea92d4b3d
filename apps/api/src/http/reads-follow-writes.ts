import type { ReadCache } from '@slipway/db';
import type { RequestHandler, Response } from 'express';

const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const WORKSPACE_PATH = /^\/workspaces\/([0-9a-fA-F-]{36})(?:\/|$)/;

/**
 * A request that changes something reads nothing from memory (every read inside it goes to PostgreSQL), and what it
 * read, with the workspace of its path, is dropped from memory just before its answer's head is written: the caller's
 * next read, and anyone else's, sees the change without waiting for PostgreSQL's notification (read-cache.ts).
 */
export function readsFollowWrites(reads: ReadCache): RequestHandler {
  return (req, res, next) => {
    if (!CHANGES.has(req.method)) {
      next();
      return;
    }
    const touched = new Set<string>();
    const workspaceId = WORKSPACE_PATH.exec(req.path)?.[1];
    if (workspaceId) touched.add(`ws:${workspaceId.toLowerCase()}`);
    const writeHead = res.writeHead;
    res.writeHead = function (this: Response, ...args: unknown[]) {
      reads.touched(touched);
      return (writeHead as (...a: unknown[]) => Response).apply(this, args);
    } as Response['writeHead'];
    reads.writing(touched, () => next());
  };
}
