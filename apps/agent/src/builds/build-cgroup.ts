import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The memory and CPU of BuildKit builds, bounded together (docs/decisions/0030).
 *
 * Docker 20.10's BuildKit ignores a build's `--memory`/`--cpu-*`: its RUN steps run in the cgroup
 * `/<cgroup parent>/buildkit/<step id>` (moby's builder-next executor: the daemon's cgroup parent, `docker` with the
 * cgroupfs driver), never in one of the build's own. That `buildkit` cgroup is the parent of every step of every
 * BuildKit build of the engine, and a parent's limits hold for its children: so the agent writes there the sum of
 * what its build slots may use (`concurrency` × the build's memory and CPUs). With one build slot (the default),
 * that is exactly the build's own limits; with more, builds share the sum (one may use more than its share while the
 * others use less). Memory includes swap (memsw = memory, as the classic builder's memswap). A step past the memory
 * is killed by the kernel (exit 137), which the failure reason reports as the build's memory.
 *
 * cgroup v1 (this engine: cgroupfs driver): `memory/<parent>/buildkit/memory.limit_in_bytes` (+ `memory.memsw.…`
 * when swap accounting is on) and `cpu/<parent>/buildkit/cpu.cfs_quota_us` over `cpu.cfs_period_us`.
 * cgroup v2: `<parent>/buildkit/memory.max`, `memory.swap.max` (0) and `cpu.max`.
 */
export interface BuildKitBound {
  memoryBytes: number;
  /** CPU time per period, in microseconds (cpus × period). */
  cpuQuotaUs: number;
  cpuPeriodUs: number;
}

export const CPU_PERIOD_US = 100_000;

/** What every build slot together may use: concurrency × the build's memory and CPUs. */
export function buildKitBound(o: { cpus: number; memoryMb: number; concurrency: number }): BuildKitBound {
  const slots = Math.max(1, Math.floor(o.concurrency));
  return {
    memoryBytes: Math.round(o.memoryMb * slots) * 1024 * 1024,
    cpuQuotaUs: Math.max(1000, Math.round(o.cpus * slots * CPU_PERIOD_US)),
    cpuPeriodUs: CPU_PERIOD_US,
  };
}

/** The files to write, in order, for a bound (v1 or v2 layout), relative to the cgroup root. */
export function boundFiles(layout: 'v1' | 'v2', parent: string, b: BuildKitBound): { file: string; value: string }[] {
  const dir = (controller: string | null) => path.posix.join(...(controller ? [controller] : []), parent, 'buildkit');
  if (layout === 'v2') {
    return [
      { file: path.posix.join(dir(null), 'memory.max'), value: String(b.memoryBytes) },
      { file: path.posix.join(dir(null), 'memory.swap.max'), value: '0' },
      { file: path.posix.join(dir(null), 'cpu.max'), value: `${b.cpuQuotaUs} ${b.cpuPeriodUs}` },
    ];
  }
  return [
    { file: path.posix.join(dir('memory'), 'memory.limit_in_bytes'), value: String(b.memoryBytes) },
    { file: path.posix.join(dir('memory'), 'memory.memsw.limit_in_bytes'), value: String(b.memoryBytes) },
    { file: path.posix.join(dir('cpu'), 'cpu.cfs_period_us'), value: String(b.cpuPeriodUs) },
    { file: path.posix.join(dir('cpu'), 'cpu.cfs_quota_us'), value: String(b.cpuQuotaUs) },
  ];
}

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

/**
 * Writes the bound on the engine's BuildKit cgroup (made when missing). Answers null when it holds, else the
 * sentence saying why it could not be applied (the build still runs; the agent logs it). Idempotent: called before
 * every BuildKit build, so a cgroup made again (engine restart) or changed by hand gets the bound back.
 */
export async function applyBuildKitBound(b: BuildKitBound, o: { root?: string; parent?: string; driver?: string | null } = {}): Promise<string | null> {
  const root = o.root ?? '/sys/fs/cgroup';
  const parent = o.parent ?? 'docker';
  if (o.driver && o.driver !== 'cgroupfs') return `the engine uses the ${o.driver} cgroup driver, whose BuildKit cgroup this agent does not know`;
  const layout = (await exists(path.join(root, 'cgroup.controllers'))) ? 'v2' : 'v1';
  const top = layout === 'v2' ? path.join(root, parent) : path.join(root, 'memory', parent);
  // With the cgroupfs driver the engine makes /<parent> at its first container; before that (a new server's first
  // build) the agent makes it. Driver unknown: only an existing one is trusted to be the engine's.
  if (!(await exists(top)) && o.driver !== 'cgroupfs') return `the engine's cgroup ${top} does not exist (another cgroup driver or parent?)`;
  try {
    if (layout === 'v1') {
      await mkdir(path.join(root, 'memory', parent, 'buildkit'), { recursive: true });
      await mkdir(path.join(root, 'cpu', parent, 'buildkit'), { recursive: true });
    } else {
      await mkdir(path.join(root, parent, 'buildkit'), { recursive: true });
    }
    const files = boundFiles(layout, parent, b);
    // memsw may never be below memory: raising, memsw goes first; lowering, memory goes first.
    if (layout === 'v1') {
      const memsw = path.join(root, files[1]!.file);
      const hasMemsw = await exists(memsw);
      const current = Number((await readFile(path.join(root, files[0]!.file), 'utf8').catch(() => '0')).trim());
      const order = hasMemsw ? (b.memoryBytes > current ? [files[1]!, files[0]!] : [files[0]!, files[1]!]) : [files[0]!];
      for (const f of [...order, files[2]!, files[3]!]) await writeFile(path.join(root, f.file), f.value);
    } else {
      for (const f of files) if (await exists(path.join(root, f.file))) await writeFile(path.join(root, f.file), f.value);
    }
    return null;
  } catch (e) {
    return `the limits could not be written under ${top} (${(e as Error).message})`;
  }
}
