/**
 * A target's verdict. A phase whose requests failed never counts as met, whatever its figures say:
 * a ratio over a failed baseline, or a fast p50 of errors, measures nothing.
 */
export function verdict(met: boolean, failed: number): string {
  if (!Number.isFinite(failed) || failed > 0) return `NOT met (${failed} requests failed: the figures measure nothing)`;
  return met ? 'met' : 'NOT met';
}

/** Marks the process as failed when any phase had failures, so a script or CI notices. */
export function exitOnFailures(failed: number): void {
  if (failed > 0) process.exitCode = 1;
}
