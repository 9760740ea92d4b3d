import { isUtf8 } from 'node:buffer';
import { AppError } from '@slipway/core';
import type { IncomingMessage } from 'node:http';
import { TextDecoder } from 'node:util';

/**
 * body-parser's `verify`: a JSON body must be valid in its charset. Without it, body-parser decodes invalid UTF-8
 * as U+FFFD and the replacement characters are stored as if the client had sent them.
 */
export function strictCharset(_req: IncomingMessage, _res: unknown, buf: Buffer, encoding: string): void {
  const charset = encoding.toLowerCase();
  if (charset === 'utf-8' || charset === 'utf8') {
    if (!isUtf8(buf)) throw new AppError('invalid_json', 'The request body is not valid UTF-8');
    return;
  }
  let decoder: TextDecoder | undefined;
  try {
    decoder = new TextDecoder(charset, { fatal: true });
  } catch {
    return; // a charset TextDecoder does not know (utf-32): body-parser's decoder, then the text rule of each field
  }
  try {
    decoder.decode(buf);
  } catch {
    throw new AppError('invalid_json', `The request body is not valid ${charset.toUpperCase()}`);
  }
}

// PostgreSQL: 22021 character_not_in_repertoire ("invalid byte sequence", e.g. U+0000 in text), 22P05
// untranslatable_character. The request validators refuse such text first; this is the last resort.
const INVALID_TEXT = new Set(['22021', '22P05']);

/**
 * Whether `err` is a database's refusal of the text it was given: pg's DatabaseError, or Prisma's known-request
 * error wrapping a driver adapter error (`meta.driverAdapterError.cause.originalCode`).
 */
export function isInvalidTextError(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const o = e as { code?: unknown; originalCode?: unknown; meta?: { driverAdapterError?: unknown }; cause?: unknown };
    if (INVALID_TEXT.has(String(o.originalCode)) || (typeof o.code === 'string' && INVALID_TEXT.has(o.code))) return true;
    e = o.meta?.driverAdapterError ?? o.cause;
  }
  return false;
}
