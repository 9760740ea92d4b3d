/**
 * A table of allowed moves between statuses, and what every conditional update derives from it: whether a move is
 * allowed, and the statuses a row may be in for a move to `to` (the `WHERE status IN (…)` of the update).
 */
export function stateTable<S extends string>(transitions: Record<S, readonly S[]>) {
  const canMove = (from: S, to: S): boolean => transitions[from].includes(to);
  const sourcesOf = (to: S): S[] => (Object.keys(transitions) as S[]).filter((from) => canMove(from, to));
  return { canMove, sourcesOf };
}
