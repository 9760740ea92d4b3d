import os from 'node:os';
import { version } from '../../package.json';

export const AGENT_VERSION = version;

/** What an operator says this server offers (SLIPWAY_AGENT_CPUS, SLIPWAY_AGENT_MEMORY_MB); 0 or absent: the whole machine. */
export interface OfferedCapacity {
  cpus?: number;
  memoryMb?: number;
}

/** This server's capacity as the control plane places workspaces on it: what is offered, else every core and all memory. */
export function capacity(offered: OfferedCapacity = {}): { cpuMillis: number; memoryMb: number } {
  return {
    cpuMillis: (offered.cpus || os.availableParallelism()) * 1000,
    memoryMb: offered.memoryMb || Math.floor(os.totalmem() / (1024 * 1024)),
  };
}

/**
 * The address the control plane should dial: the configured one, else the listen address, with a wildcard
 * host (0.0.0.0, ::) replaced by the server's first public IPv4 address.
 */
export function advertisedAddress(listen: string, configured: string, publicIpv4: readonly string[]): string {
  const chosen = configured || listen;
  const m = /^\[?([^\]]*)\]?:(\d+)$/.exec(chosen);
  if (!m) return chosen;
  const [, host, port] = m;
  if ((host === '0.0.0.0' || host === '::' || host === '') && publicIpv4[0]) return `${publicIpv4[0]}:${port}`;
  return chosen;
}
