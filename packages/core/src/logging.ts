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

/**
 * A warning for a dependency's connection errors (PostgreSQL or Redis restarting) that logs the first one and then
 * at most one every `everyMs`, with the count of those it held back: a restart is a line or two, not thousands.
 */
export function dependencyWarnings(logger: Logger, dependency: string, everyMs = 5_000): (err: Error) => void {
  let last = 0;
  let held = 0;
  return (err) => {
    const now = Date.now();
    if (now - last < everyMs) {
      held++;
      return;
    }
    logger.warn({ dependency, err: err.message, code: (err as { code?: string }).code, suppressed: held }, `${dependency} connection error (reconnecting)`);
    last = now;
    held = 0;
  };
}
