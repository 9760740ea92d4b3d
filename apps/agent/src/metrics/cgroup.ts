// Reading a container's counters straight from the kernel (issue 15): cgroup v1 and v2 files, and the network
// counters of the container's network namespace through /proc/<pid>/net/dev. The parsers are pure functions of the
// files' text (unit-tested on contents captured from a real machine, fixtures/); the readers only open files.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** Cumulative counters of one container at one moment; memory is a gauge. */
export interface ContainerCounters {
  /** CPU time used since the cgroup was made, in nanoseconds. */
  cpuNs: number;
  /** Memory in use without the page cache that can be dropped (what `docker stats` shows), bytes. */
  memoryBytes: number;
  rxBytes: number;
  txBytes: number;
  readBytes: number;
  writeBytes: number;
}

// ------------------------------------------------------------------------------------------------------ parsers

const firstNumber = (text: string): number => {
  const n = Number(text.trim().split(/\s+/)[0]);
  return Number.isFinite(n) ? n : 0;
};

/** v1 `cpuacct.usage`: nanoseconds. */
export const parseV1CpuUsage = (text: string): number => firstNumber(text);

/**
 * The value of one `key value` line of a stat file, or null. One search, no line split: memory.stat has 30 to 40 lines
 * and is read for every container every cycle (splitting it was a fifth of the agent's allocations at 1,000 apps).
 */
export function statValue(text: string, key: string): number | null {
  let at = text.startsWith(`${key} `) ? 0 : text.indexOf(`\n${key} `);
  if (at < 0) return null;
  if (text[at] === '\n') at++;
  const start = at + key.length + 1;
  const end = text.indexOf('\n', start);
  const value = text.slice(start, end < 0 ? undefined : end).trim();
  return /^\d+$/.test(value) ? Number(value) : null;
}

/** v2 `cpu.stat`: `usage_usec`, in nanoseconds. */
export const parseV2CpuStat = (text: string): number => (statValue(text, 'usage_usec') ?? 0) * 1000;

/**
 * v1 memory: `memory.usage_in_bytes` minus `total_inactive_file` of `memory.stat` (the page cache the kernel can
 * drop at once), as the Docker CLI computes it; never below zero.
 */
export function parseV1Memory(usageText: string, statText: string): number {
  const inactive = statValue(statText, 'total_inactive_file') ?? statValue(statText, 'inactive_file') ?? 0;
  return Math.max(0, firstNumber(usageText) - inactive);
}

/** v2 memory: `memory.current` minus `inactive_file` of `memory.stat`. */
export function parseV2Memory(currentText: string, statText: string): number {
  return Math.max(0, firstNumber(currentText) - (statValue(statText, 'inactive_file') ?? 0));
}

/** v1 `blkio.throttle.io_service_bytes`: `MAJ:MIN Read|Write|… N` lines summed over devices (the `Total` line skipped). */
export function parseV1Blkio(text: string): { readBytes: number; writeBytes: number } {
  let readBytes = 0;
  let writeBytes = 0;
  for (const line of text.split('\n')) {
    const [device, op, value] = line.trim().split(/\s+/);
    if (!device || !/^\d+:\d+$/.test(device) || value === undefined) continue;
    if (op === 'Read') readBytes += Number(value) || 0;
    else if (op === 'Write') writeBytes += Number(value) || 0;
  }
  return { readBytes, writeBytes };
}

/** v2 `io.stat`: `MAJ:MIN rbytes=N wbytes=N rios=N …` lines summed over devices. */
export function parseV2IoStat(text: string): { readBytes: number; writeBytes: number } {
  let readBytes = 0;
  let writeBytes = 0;
  for (const line of text.split('\n')) {
    for (const field of line.trim().split(/\s+/).slice(1)) {
      const [k, v] = field.split('=');
      if (k === 'rbytes') readBytes += Number(v) || 0;
      else if (k === 'wbytes') writeBytes += Number(v) || 0;
    }
  }
  return { readBytes, writeBytes };
}

/** `/proc/<pid>/net/dev`: received and sent bytes summed over every interface but loopback. */
export function parseNetDev(text: string): { rxBytes: number; txBytes: number } {
  let rxBytes = 0;
  let txBytes = 0;
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const iface = line.slice(0, colon).trim();
    if (!iface || iface === 'lo' || iface.includes('|')) continue;
    const f = line.slice(colon + 1).trim().split(/\s+/);
    if (f.length < 9) continue;
    rxBytes += Number(f[0]) || 0;
    txBytes += Number(f[8]) || 0;
  }
  return { rxBytes, txBytes };
}

/** `/proc/<pid>/cgroup`: the cgroup path of each v1 controller, and the v2 path (`0::/path`) under the key ''. */
export function parseProcCgroup(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!m) continue;
    for (const controller of m[2]!.split(',')) out.set(controller, m[3]!);
  }
  return out;
}

// ------------------------------------------------------------------------------------------------------ readers

export type CgroupMode = 'v1' | 'v2';

/** Where one container's counter files are, resolved once per container from /proc/<pid>/cgroup. */
export interface CgroupPaths {
  mode: CgroupMode;
  cpu: string;
  memory: string;
  io: string;
  /** A file listing the container's processes: any of them shares the container's network namespace. */
  procs: string;
}

/** v2 when the unified hierarchy is mounted at the root (`cgroup.controllers` there), else v1 controllers. */
export async function detectCgroupMode(root = '/sys/fs/cgroup'): Promise<CgroupMode> {
  try {
    await readFile(path.join(root, 'cgroup.controllers'));
    return 'v2';
  } catch {
    return 'v1';
  }
}

/** The counter files of the cgroups a process is in (null when its cgroup file does not name them). */
export function cgroupPathsOf(procCgroup: string, mode: CgroupMode, root = '/sys/fs/cgroup'): CgroupPaths | null {
  const paths = parseProcCgroup(procCgroup);
  if (mode === 'v2') {
    const p = paths.get('');
    if (p === undefined) return null;
    const dir = path.join(root, p);
    return { mode, cpu: dir, memory: dir, io: dir, procs: path.join(dir, 'cgroup.procs') };
  }
  const cpu = paths.get('cpuacct');
  const memory = paths.get('memory');
  const io = paths.get('blkio');
  if (cpu === undefined || memory === undefined || io === undefined) return null;
  return {
    mode,
    cpu: path.join(root, 'cpuacct', cpu),
    memory: path.join(root, 'memory', memory),
    io: path.join(root, 'blkio', io),
    procs: path.join(root, 'cpuacct', cpu, 'cgroup.procs'),
  };
}

/**
 * Files the kernel makes when read (cgroup and /proc): nothing waits on a disk, so they are read synchronously, each
 * into one string (no 64 KB buffer, file handle and promises per file as `fs/promises` takes). At 1,000 containers a
 * cycle reads ~6,000 of them: asynchronously that was most of the agent's allocations and its RSS at that size.
 */
const read = (file: string) => readFileSync(file, 'utf8');
const readOr = (file: string, fallback: string) => {
  try {
    return read(file);
  } catch {
    return fallback;
  }
};

/**
 * One reading of a container's counters: five or six small files, synchronously (see `read`; well under a
 * millisecond). Throws when the cgroup is gone (the container stopped or was replaced); the caller resolves the paths
 * again from a fresh pid.
 */
export function readCounters(p: CgroupPaths, pid: number, procRoot = '/proc'): ContainerCounters {
  const net = parseNetDev(read(path.join(procRoot, String(pid), 'net', 'dev')));
  if (p.mode === 'v1') {
    const cpu = read(path.join(p.cpu, 'cpuacct.usage'));
    const memory = parseV1Memory(read(path.join(p.memory, 'memory.usage_in_bytes')), read(path.join(p.memory, 'memory.stat')));
    return { cpuNs: parseV1CpuUsage(cpu), memoryBytes: memory, ...net, ...parseV1Blkio(readOr(path.join(p.io, 'blkio.throttle.io_service_bytes'), '')) };
  }
  const cpu = read(path.join(p.cpu, 'cpu.stat'));
  const memory = parseV2Memory(read(path.join(p.memory, 'memory.current')), read(path.join(p.memory, 'memory.stat')));
  return { cpuNs: parseV2CpuStat(cpu), memoryBytes: memory, ...net, ...parseV2IoStat(readOr(path.join(p.io, 'io.stat'), '')) };
}

/** A process still in the container's cgroup (its init may have been replaced after a restart): the first listed. */
export function firstPid(p: CgroupPaths): number | null {
  const first = readOr(p.procs, '').split('\n').find((l) => /^\d+$/.test(l.trim()));
  return first ? Number(first) : null;
}
