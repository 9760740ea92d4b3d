import type { NodeCapacity } from '../ports/repositories';

/** What the plan's first app needs: a new workspace goes where it fits. */
export interface PlacementNeed {
  cpuMillis: number;
  memoryMb: number;
  diskMb: number;
}

export type PlacementResource = 'cpu' | 'memory' | 'disk';

export type Placement =
  | { node: NodeCapacity }
  /** No online, uncordoned server; `cordoned`: how many online servers there are, all cordoned. */
  | { node: null; reason: 'no_server'; cordoned: number }
  /** Servers exist, none has room: `resource` is what the roomiest one lacks, `available` how much of it that one has. */
  | { node: null; reason: 'no_capacity'; resource: PlacementResource; requested: number; available: number };

export const freeMemory = (n: NodeCapacity): number => Math.max(0, n.memoryMb - n.reservedMemoryMb);
export const freeCpu = (n: NodeCapacity): number => Math.max(0, n.cpuMillis - n.reservedCpuMillis);
/** Free disk above the server's reserve at its last health check; a server that never reported it is not limited by disk. */
export const freeDisk = (n: NodeCapacity): number => (n.disk ? Math.max(0, n.disk.freeMb - n.disk.reserveMb) : Number.MAX_SAFE_INTEGER);

/**
 * Where a new workspace goes: among the online, uncordoned servers that have room for the plan's first app (vCPU,
 * memory, and disk above the server's reserve), the one with the most free memory (memory runs out first on a
 * shared host), then the most free vCPU, then the most free disk, then by name so the choice is stable. What a server
 * has reserved counts each workspace at least at the first app's size, so empty workspaces spread too.
 */
export function placeWorkspace(nodes: readonly NodeCapacity[], need: PlacementNeed): Placement {
  const open = nodes.filter((n) => !n.cordoned);
  if (open.length === 0) return { node: null, reason: 'no_server', cordoned: nodes.length };
  const fits = open.filter((n) => shortOf(n, need) === null);
  if (fits.length > 0) return { node: [...fits].sort(compare)[0]! };
  const roomiest = [...open].sort(compare)[0]!;
  const resource = shortOf(roomiest, need)!;
  const available = resource === 'memory' ? freeMemory(roomiest) : resource === 'cpu' ? freeCpu(roomiest) : freeDisk(roomiest);
  const requested = resource === 'memory' ? need.memoryMb : resource === 'cpu' ? need.cpuMillis : need.diskMb;
  return { node: null, reason: 'no_capacity', resource, requested, available };
}

/** The online node with the most free capacity, whatever the need (kept for callers that only rank). */
export function chooseNode(nodes: readonly NodeCapacity[]): NodeCapacity | null {
  return [...nodes].sort(compare)[0] ?? null;
}

function shortOf(n: NodeCapacity, need: PlacementNeed): PlacementResource | null {
  if (freeMemory(n) < need.memoryMb) return 'memory';
  if (freeCpu(n) < need.cpuMillis) return 'cpu';
  if (n.disk && (n.disk.freeMb < n.disk.reserveMb || freeDisk(n) < need.diskMb)) return 'disk';
  return null;
}

function compare(a: NodeCapacity, b: NodeCapacity): number {
  return freeMemory(b) - freeMemory(a) || freeCpu(b) - freeCpu(a) || Math.sign(freeDisk(b) - freeDisk(a)) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}
