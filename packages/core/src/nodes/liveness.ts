import type { NodeStatus } from './node.ports';

/**
 * What a health check means for a node's status. A node that answers is online. A node that does not
 * stays online until it has not been seen for `offlineAfterMs`, so one lost check does not move work
 * away. Offline only stops new placement and dispatch: nothing is ever deleted because a node is offline.
 */
export function nextStatus(current: { status: NodeStatus; lastSeenAt: Date | null }, answered: boolean, now: Date, offlineAfterMs: number): NodeStatus {
  if (answered) return 'online';
  if (current.status === 'offline') return 'offline';
  if (!current.lastSeenAt) return 'offline';
  return now.getTime() - current.lastSeenAt.getTime() >= offlineAfterMs ? 'offline' : 'online';
}

/** Free capacity: the node's size minus what the workspaces placed on it reserve (never below zero). */
export function freeCapacity(n: { cpuMillis: number; memoryMb: number; reservedCpuMillis: number; reservedMemoryMb: number }) {
  return { cpuMillis: Math.max(0, n.cpuMillis - n.reservedCpuMillis), memoryMb: Math.max(0, n.memoryMb - n.reservedMemoryMb) };
}
