import type { NodeCapacity } from '../ports/repositories';

/**
 * The online node with the most free capacity (its size minus what the workspaces placed on it reserve): most
 * free memory first, since memory is what runs out first on a shared host, then most free vCPU, then by name so
 * the choice is stable. null when there is no node.
 */
export function chooseNode(nodes: readonly NodeCapacity[]): NodeCapacity | null {
  let best: NodeCapacity | null = null;
  for (const n of nodes) {
    if (!best || compare(n, best) < 0) best = n;
  }
  return best;
}

function compare(a: NodeCapacity, b: NodeCapacity): number {
  const mem = freeMemory(b) - freeMemory(a);
  if (mem !== 0) return mem;
  const cpu = freeCpu(b) - freeCpu(a);
  if (cpu !== 0) return cpu;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

const freeMemory = (n: NodeCapacity) => n.memoryMb - n.reservedMemoryMb;
const freeCpu = (n: NodeCapacity) => n.cpuMillis - n.reservedCpuMillis;
