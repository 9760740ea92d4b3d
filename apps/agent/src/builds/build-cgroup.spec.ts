import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { applyBuildKitBound, buildKitBound } from './build-cgroup';

// The engine-wide bound of BuildKit builds, written into a stand-in cgroup tree (plain files in a temporary folder).
let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'slipway-cgroup-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

const read = (f: string) => readFile(path.join(root, f), 'utf8');

async function v1Tree(memory = '9223372036854771712'): Promise<void> {
  await mkdir(path.join(root, 'memory/docker/buildkit'), { recursive: true });
  await mkdir(path.join(root, 'cpu/docker/buildkit'), { recursive: true });
  await writeFile(path.join(root, 'memory/docker/buildkit/memory.limit_in_bytes'), memory);
  await writeFile(path.join(root, 'memory/docker/buildkit/memory.memsw.limit_in_bytes'), memory);
}

describe('buildKitBound', () => {
  it('is the build slots together: concurrency × the memory and CPUs of a build', () => {
    expect(buildKitBound({ cpus: 1, memoryMb: 2048, concurrency: 1 })).toEqual({ memoryBytes: 2048 * 1024 * 1024, cpuQuotaUs: 100_000, cpuPeriodUs: 100_000 });
    expect(buildKitBound({ cpus: 1.5, memoryMb: 3072, concurrency: 2 })).toEqual({ memoryBytes: 6144 * 1024 * 1024, cpuQuotaUs: 300_000, cpuPeriodUs: 100_000 });
  });
});

describe('applyBuildKitBound', () => {
  it('cgroup v1: memory, memory+swap and the CPU quota of <parent>/buildkit', async () => {
    await v1Tree();
    expect(await applyBuildKitBound(buildKitBound({ cpus: 2, memoryMb: 1024, concurrency: 1 }), { root })).toBeNull();
    expect(await read('memory/docker/buildkit/memory.limit_in_bytes')).toBe(String(1024 * 1024 * 1024));
    expect(await read('memory/docker/buildkit/memory.memsw.limit_in_bytes')).toBe(String(1024 * 1024 * 1024));
    expect(await read('cpu/docker/buildkit/cpu.cfs_period_us')).toBe('100000');
    expect(await read('cpu/docker/buildkit/cpu.cfs_quota_us')).toBe('200000');
  });

  it('cgroup v1: made when the engine has not made it yet', async () => {
    await mkdir(path.join(root, 'memory/docker'), { recursive: true });
    await mkdir(path.join(root, 'cpu/docker'), { recursive: true });
    await mkdir(path.join(root, 'memory/docker/buildkit'), { recursive: true });
    await writeFile(path.join(root, 'memory/docker/buildkit/memory.limit_in_bytes'), '0');
    expect(await applyBuildKitBound(buildKitBound({ cpus: 1, memoryMb: 512, concurrency: 1 }), { root })).toBeNull();
    expect(await read('memory/docker/buildkit/memory.limit_in_bytes')).toBe(String(512 * 1024 * 1024));
  });

  it('cgroup v2: memory.max, no swap, cpu.max', async () => {
    await writeFile(path.join(root, 'cgroup.controllers'), 'cpu memory');
    await mkdir(path.join(root, 'docker/buildkit'), { recursive: true });
    for (const f of ['memory.max', 'memory.swap.max', 'cpu.max']) await writeFile(path.join(root, 'docker/buildkit', f), 'max');
    expect(await applyBuildKitBound(buildKitBound({ cpus: 1, memoryMb: 1024, concurrency: 3 }), { root })).toBeNull();
    expect(await read('docker/buildkit/memory.max')).toBe(String(3072 * 1024 * 1024));
    expect(await read('docker/buildkit/memory.swap.max')).toBe('0');
    expect(await read('docker/buildkit/cpu.max')).toBe('300000 100000');
  });

  it('the cgroupfs driver before its first container: the parent is made too', async () => {
    await mkdir(path.join(root, 'memory'), { recursive: true });
    await mkdir(path.join(root, 'cpu'), { recursive: true });
    expect(await applyBuildKitBound(buildKitBound({ cpus: 1, memoryMb: 256, concurrency: 1 }), { root, driver: 'cgroupfs' })).toBeNull();
    expect(await read('memory/docker/buildkit/memory.limit_in_bytes')).toBe(String(256 * 1024 * 1024));
    expect(await read('cpu/docker/buildkit/cpu.cfs_quota_us')).toBe('100000');
  });

  it('the systemd driver: a sentence, nothing written', async () => {
    await v1Tree();
    expect(await applyBuildKitBound(buildKitBound({ cpus: 1, memoryMb: 256, concurrency: 1 }), { root, driver: 'systemd' })).toBe(
      'the engine uses the systemd cgroup driver, whose BuildKit cgroup this agent does not know',
    );
    expect(await read('memory/docker/buildkit/memory.limit_in_bytes')).toBe('9223372036854771712');
  });

  it("no engine cgroup under that parent: a sentence, nothing written", async () => {
    await mkdir(path.join(root, 'memory'), { recursive: true });
    expect(await applyBuildKitBound(buildKitBound({ cpus: 1, memoryMb: 1024, concurrency: 1 }), { root, parent: 'elsewhere' })).toBe(
      `the engine's cgroup ${path.join(root, 'memory', 'elsewhere')} does not exist (another cgroup driver or parent?)`,
    );
  });
});
