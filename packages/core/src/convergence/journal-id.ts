/**
 * Agent journal ids (an agent does each journaled command once per id): letters, digits, `-` and `_`, at most 128
 * characters. Every workload's jobs and repairs make theirs from an operation id or a run id with this.
 */
export const journalIdOf = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 128);
