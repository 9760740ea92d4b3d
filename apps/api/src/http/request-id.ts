import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a sane client `X-Request-Id`, otherwise makes one; the request log carries it on every line. */
export function assignRequestId(req: Request, res: Response): string {
  const sent = req.headers['x-request-id'];
  const id = typeof sent === 'string' && ACCEPTABLE.test(sent) ? sent : randomUUID();
  (req as { id?: string }).id = id;
  res.setHeader('X-Request-Id', id);
  return id;
}

export const requestId: RequestHandler = (req, res, next) => {
  assignRequestId(req, res);
  next();
};
