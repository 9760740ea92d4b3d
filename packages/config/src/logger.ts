import { REDACT_PATHS } from '@slipway/core';
import pino, { type Logger } from 'pino';

export function createLogger(name: string, level: string): Logger {
  return pino({ name, level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } });
}
