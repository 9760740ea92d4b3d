/**
 * Freezes a value and everything it holds, in place, and returns it: for what is shared between requests (a read
 * kept in memory, the answer made from it), so that no caller can change what the next one gets. Dates are frozen
 * as objects (their setters still work on the internal slot, so nothing may call them on a shared value); byte
 * buffers cannot be frozen and are left as they are.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value) || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (value instanceof Date) return value;
  for (const v of Object.values(value)) deepFreeze(v);
  return value;
}
