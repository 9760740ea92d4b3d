/** The subset of pino that services use, so core does not depend on pino. */
export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  debug(obj: object | string, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

/** Fields never written to logs, whatever object carries them (pino `redact` paths). */
export const REDACT_PATHS = [
  'password',
  '*.password',
  'token',
  '*.token',
  'value',
  'variables[*].value',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];
