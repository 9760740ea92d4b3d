import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a sane client `X-Request-Id`, otherwise makes one; the request log carries it on every line. */
export const requestId: RequestHandler = (req, res, next) => {
  const sent = req.get('x-request-id');
  const id = sent && ACCEPTABLE.test(sent) ? sent : randomUUID();
  (req as { id?: string }).id = id;
  res.setHeader('X-Request-Id', id);
  next();
};
