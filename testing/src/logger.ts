// A logger that says nothing, for tests and benchmarks that compose product code which takes one.
import type { Logger } from '@slipway/core';

export const silentLogger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
  child: () => silentLogger,
};
