import os from 'node:os';
import { version } from '../package.json';

export const AGENT_VERSION = version;

/** This server's capacity as the control plane schedules it: every core, all memory. */
export function capacity(): { cpuMillis: number; memoryMb: number } {
  return { cpuMillis: os.availableParallelism() * 1000, memoryMb: Math.floor(os.totalmem() / (1024 * 1024)) };
}
