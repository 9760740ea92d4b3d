import { ImageGate } from './image-gate';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { DockerRuntime } from '../containers/docker.runtime';
import { silentLogger } from '@slipway/testing/logger';
import { Builder, type BuilderOptions } from './builder';
import { DEFAULT_RUNTIMES } from './detect';
import { DEFAULT_BASE_IMAGES } from './dockerfiles';
import { BuildError } from './extract';
import { nodeSample, sample, zipOf, type SampleKind } from '@slipway/testing/samples';
import { writeZip } from '@slipway/testing/zip';

// Real Docker, local base images (deploy/images/build.sh), the npm registry through this machine's CA bundle.
// Builds of a first upload run several stages (jest's per-project testTimeout is not applied: set it here).
jest.setTimeout(240_000);
const docker = new Docker({ socketPath: '/var/run/docker.sock' });
const CA = '/etc/ssl/certs/ca-certificates.crt';
const appId = randomUUID();
let work: string;

function builder(o: Partial<BuilderOptions> = {}): Builder {
  return new Builder({
    docker: new DockerRuntime('/var/run/docker.sock', 'builder-test'),
    buildsDir: path.join(work, 'builds'),
    gate: new ImageGate(),
    images: DEFAULT_BASE_IMAGES,
    runtimes: DEFAULT_RUNTIMES,
    extraCaBundle: CA,
    cpus: 1,
    memoryMb: 1024,
    timeoutMs: 120_000,
    concurrency: 1,
    diskMb: 5120,
    // The classic builder unless a test says otherwise (BuildKit, the default engine, has its own describe below).
    engine: 'classic',
    buildKitCgroup: null,
    logger: silentLogger,
    ...o,
  });
}

async function zipFile(content: Buffer): Promise<string> {
  const p = path.join(work, `${randomUUID()}.zip`);
  await writeFile(p, content);
  return p;
}

async function build(b: Builder, zip: Buffer, signal?: AbortSignal) {
  const lines: string[] = [];
  const deploymentId = randomUUID();
  const result = await b.build({ workspaceId: 'ws-test', appId, deploymentId, zipPath: await zipFile(zip), signal }, (l) => lines.push(l)).catch((e: unknown) => e as Error);
  return { result, lines, deploymentId };
}

/** A build that must succeed: its result, or the failure with the build's log. */
async function built(b: Builder, zip: Buffer) {
  const { result, lines } = await build(b, zip);
  if (result instanceof Error) throw new Error(`${result.message}\n${lines.join('\n')}`);
  return { result, lines };
}

/** Polls `check` every 200 ms, at most `tries` times, until it answers `want`. */
async function until(check: () => Promise<boolean>, want: boolean, tries: number): Promise<void> {
  for (let i = 0; i < tries && (await check()) !== want; i++) await new Promise((r) => setTimeout(r, 200));
}

/** Entries of `dir` now that were not in `before`, the uploaded .zip files aside. */
const leftBehind = async (dir: string, before: string[]) => (await readdir(dir)).filter((f) => !before.includes(f) && !f.endsWith('.zip'));

/** Runs the image briefly with its port on 127.0.0.1 and answers the body of GET /. */
async function serve(imageRef: string): Promise<string> {
  const c = await docker.createContainer({
    Image: imageRef,
    Env: ['PORT=8080'],
    ExposedPorts: { '8080/tcp': {} },
    Labels: { 'slipway.workspace': 'ws-test' },
    HostConfig: { PortBindings: { '8080/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] } },
  });
  try {
    await c.start();
    const port = (await c.inspect()).NetworkSettings.Ports['8080/tcp']![0]!.HostPort;
    const end = Date.now() + 20_000;
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
        if (res.ok) return await res.text();
      } catch {
        // not listening yet
      }
      if (Date.now() > end) throw new Error(`${imageRef} never answered; logs: ${String(await c.logs({ stdout: true, stderr: true }))}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await c.remove({ force: true });
  }
}

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'slipway-build-'));
});
afterAll(async () => {
  for (const img of await docker.listImages({ filters: { reference: [`slipway-app/${appId}`] } })) {
    for (const tag of img.RepoTags ?? []) await docker.getImage(tag).remove().catch(() => undefined);
  }
  await rm(work, { recursive: true, force: true });
});

describe('Builder: sample apps built into images that answer', () => {
  /** The static sample sits in a folder of the .zip (the builder finds it there); the others at its root. */
  const SITE_FOLDER: Partial<Record<SampleKind, string>> = { static: 'site' };
  it.each<[SampleKind, string, RegExp]>([
    ['node', 'node v1 1m\n', /Found package-lock\.json: dependencies installed with npm ci/],
    ['python', 'python v1\n', /Found requirements\.txt: a Python app/],
    ['static', 'static v1\n', /Found index\.html: a static site/],
    ['dockerfile', 'dockerfile v1\n', /Found a Dockerfile at the root/],
  ])('%s', async (kind, body, reason) => {
    const { result, lines } = await built(builder(), zipOf(sample(kind), SITE_FOLDER[kind]));
    expect(result.language).toBe(kind);
    expect(lines.join('\n')).toMatch(reason);
    const image = await docker.getImage(result.imageRef).inspect();
    expect(image.Config.Labels).toMatchObject({ 'slipway.app': appId });
    expect(image.Config.WorkingDir).toBe('/app');
    expect(await serve(result.imageRef)).toBe(body);
  });

  it('a second build with the same lockfile reuses the dependency layer', async () => {
    const b = builder();
    await built(b, zipOf(sample('node', 'w1')));
    const second = await built(b, zipOf(sample('node', 'w2')));
    // The install step's "Using cache" follows its RUN line.
    const i = second.lines.findIndex((l) => /^Step \d+\/\d+ .*RUN (npm ci|sh \/usr\/local\/bin\/slipway-install)/.test(l));
    expect(i).toBeGreaterThan(0);
    expect(second.lines[i + 1]).toMatch(/Using cache/);
    // The source changed: the COPY of it is not cached.
    const copy = second.lines.findIndex((l) => /^Step \d+\/\d+ : COPY app\/ \.\//.test(l));
    expect(second.lines[copy + 1]).not.toMatch(/Using cache/);
    expect(await serve(second.result.imageRef)).toBe('node w2 1m\n');
  });

  it('RUN steps run under the build\'s memory and CPU limits (cgroup v1)', async () => {
    const { lines } = await built(
      builder({ memoryMb: 700, cpus: 0.5 }),
      zipOf({ Dockerfile: `FROM slipway/node:24\nRUN echo mem=$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes) cpu=$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) ${randomUUID()}\n` }),
    );
    expect(lines.find((l) => l.startsWith('mem='))).toMatch(new RegExp(`^mem=${700 * 1024 * 1024} cpu=50000 `));
  });
});

describe('Builder: failures', () => {
  it.each<[string, Buffer, RegExp]>([
    ['zip-slip', writeZip([{ name: 'index.html', data: 'x' }, { name: '../../escaped.txt', data: 'pwned' }]), /contains "\.\." and would be written outside/],
    ['symlink', writeZip([{ name: 'index.html', data: 'x' }, { name: 'passwd', data: '/etc/passwd', mode: 0o120777 }]), /is a symbolic link/],
    ['zip bomb', writeZip([{ name: 'bomb', data: Buffer.alloc(50_000_000) }]), /zip bomb/],
    ['not a zip', Buffer.from('PK but not really, just text\n'.repeat(100)), /not a valid \.zip/],
    ['unknown language', writeZip([{ name: 'notes.txt', data: 'hi' }]), /Looked at the root of the \.zip for/],
  ])('%s: a BuildError with a clear reason, nothing left behind', async (_name, zip, reason) => {
    const before = await readdir(work);
    const { result } = await build(builder(), zip);
    expect(result).toBeInstanceOf(BuildError);
    expect((result as Error).message).toMatch(reason);
    expect(await readdir(path.join(work, 'builds'))).toEqual([]);
    expect(await leftBehind(work, before)).toEqual([]);
    expect(await readdir(path.dirname(work))).not.toContain('escaped.txt');
  });

  it('a failing RUN step of an own Dockerfile fails the build naming the step and its exit code', async () => {
    const { result, lines } = await build(builder(), zipOf({ Dockerfile: 'FROM slipway/node:24\nRUN echo about to fail && exit 3\n' }));
    expect(result).toBeInstanceOf(BuildError);
    expect((result as Error).message).toBe('The step "RUN echo about to fail && exit 3" failed (exit code 3); the build log above shows its output');
    expect(lines).toContain('about to fail');
  });

  it('the time limit stops a build', async () => {
    const started = Date.now();
    const { result } = await build(builder({ timeoutMs: 3_000 }), zipOf({ Dockerfile: 'FROM slipway/node:24\nRUN sleep 60\n' }));
    expect((result as Error).message).toMatch(/longer than 3 s/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('cancelling stops a running build, and a waiting one never starts', async () => {
    const b = builder({ concurrency: 1 });
    const marker = randomUUID().slice(0, 8);
    const running = new AbortController();
    const waiting = new AbortController();
    // Both .zip files written first: the first build takes the slot when it is called, the second is called after it.
    const firstZip = await zipFile(zipOf({ Dockerfile: `FROM slipway/node:24\nRUN echo ${marker} && sleep 60\n` }));
    const secondZip = await zipFile(zipOf(sample('static')));
    const first = b
      .build({ workspaceId: 'ws-test', appId, deploymentId: randomUUID(), zipPath: firstZip, signal: running.signal }, () => undefined)
      .then((result) => ({ result }))
      .catch((e: unknown) => ({ result: e as Error }));
    const secondLines: string[] = [];
    const second = b.build({ workspaceId: 'ws-test', appId, deploymentId: randomUUID(), zipPath: secondZip, signal: waiting.signal }, (l) => secondLines.push(l)).catch((e: Error) => e);
    // Wait until the RUN step is running, then cancel both.
    await until(() => runningWith(marker), true, 100);
    expect(await runningWith(marker)).toBe(true);
    expect(secondLines[0]).toBe('Waiting for a build slot (1 build at a time on this server): number 1 in the queue');
    waiting.abort();
    running.abort();
    expect(((await first).result as Error).message).toBe('The build was cancelled');
    expect(((await second) as Error).message).toBe('The build was cancelled');
    // The daemon stops the RUN container once the client is gone.
    await until(() => runningWith(marker), false, 50);
    expect(await runningWith(marker)).toBe(false);
  });
});

// BuildKit (the default engine): the docker CLI, cache mounts per app, steps under the engine's BuildKit cgroup.
describe('Builder with BuildKit', () => {
  const bk = (o: Partial<BuilderOptions> = {}) => builder({ engine: 'buildkit', ...o });

  it.each<[SampleKind, string]>([
    ['node', 'node k1 1m\n'],
    ['python', 'python k1\n'],
    ['static', 'static k1\n'],
    ['dockerfile', 'dockerfile k1\n'],
  ])('%s: built into an image that answers', async (kind, body) => {
    const { result, lines } = await built(bk(), zipOf(sample(kind, 'k1')));
    expect(result.language).toBe(kind);
    expect(lines.join('\n')).toMatch(/^docker build with BuildKit \(/m);
    expect(await serve(result.imageRef)).toBe(body);
  });

  it('a second build with the same lockfile reuses the installed dependencies and says so; the log says where the time went', async () => {
    const b = bk();
    const nonce = randomUUID();
    const reused = 'Dependencies reused from the build cache (package.json and the lockfile are unchanged)';
    const first = await built(b, zipOf(nodeSample('k2', nonce)));
    expect(first.lines).not.toContain(reused);
    expect(first.lines.join('\n')).toMatch(/^Step times: (.*, )?RUN sh \/usr\/local\/bin\/slipway-install && mkdir -p node_modules \d+\.\d s/m);
    const second = await built(b, zipOf(nodeSample('k3', nonce)));
    expect(second.lines).toContain(reused);
    expect(await serve(second.result.imageRef)).toBe('node k3 1m\n');
  });

  it("its steps run in the engine's BuildKit cgroup, which holds the memory and CPU of every build slot together", async () => {
    const saved = await cgroupValues();
    try {
      const { lines } = await built(
        bk({ buildKitCgroup: {}, memoryMb: 3072, cpus: 1, concurrency: 2 }),
        zipOf({ Dockerfile: `FROM slipway/node:24\nRUN grep -E ':memory:' /proc/self/cgroup && echo ${randomUUID()}\n` }),
      );
      expect(lines.join('\n')).toContain("docker build with BuildKit (2 CPU and 6144 MB shared by this server's 2 build slots; at most 120 s)");
      // The step's own output (its title line names ':memory:' too): `N:memory:/docker/buildkit/<step id>`.
      expect(lines.find((l) => /^\d+:memory:/.test(l))).toMatch(/^\d+:memory:\/docker\/buildkit\/[a-z0-9]+$/);
      expect(await cgroupValues()).toEqual({ memory: String(6144 * 1024 * 1024), memsw: String(6144 * 1024 * 1024), quota: '200000', period: '100000' });
    } finally {
      await restoreCgroup(saved);
    }
  });

  it("a step past the builds' memory is killed, and the reason says it ran out of memory", async () => {
    const saved = await cgroupValues();
    try {
      const { result } = await build(
        bk({ buildKitCgroup: {}, memoryMb: 400, concurrency: 1 }),
        zipOf({ Dockerfile: `FROM slipway/node:24\nRUN node -e "const b = []; for (let i = 0; i < 40; i++) b.push(Buffer.alloc(30e6, 1)); console.log('${randomUUID()}', b.length)"\n` }),
      );
      expect((result as Error).message).toMatch(/was killed: it may have run out of the build's 400 MB of memory/);
    } finally {
      await restoreCgroup(saved);
    }
  });

  it('the time limit stops a BuildKit build', async () => {
    const started = Date.now();
    const { result } = await build(bk({ timeoutMs: 3_000 }), zipOf({ Dockerfile: `FROM slipway/node:24\nRUN echo ${randomUUID()} && sleep 60\n` }));
    expect((result as Error).message).toMatch(/longer than 3 s/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('cancelling stops a running BuildKit build (its step process ends)', async () => {
    const marker = randomUUID().slice(0, 8);
    const running = new AbortController();
    const first = build(bk(), zipOf({ Dockerfile: `FROM slipway/node:24\nRUN echo ${marker} && sleep 60\n` }), running.signal);
    await until(() => processWith(marker), true, 150);
    expect(await processWith(marker)).toBe(true);
    running.abort();
    expect(((await first).result as Error).message).toBe('The build was cancelled');
    await until(() => processWith(marker), false, 50);
    expect(await processWith(marker)).toBe(false);
  });
});

const CGROUP = { memory: '/sys/fs/cgroup/memory/docker/buildkit/memory.limit_in_bytes', memsw: '/sys/fs/cgroup/memory/docker/buildkit/memory.memsw.limit_in_bytes', quota: '/sys/fs/cgroup/cpu/docker/buildkit/cpu.cfs_quota_us', period: '/sys/fs/cgroup/cpu/docker/buildkit/cpu.cfs_period_us' };
type CgroupValues = Record<keyof typeof CGROUP, string>;
async function cgroupValues(): Promise<CgroupValues> {
  const read = async (f: string) => (await readFile(f, 'utf8')).trim();
  return { memory: await read(CGROUP.memory), memsw: await read(CGROUP.memsw), quota: await read(CGROUP.quota), period: await read(CGROUP.period) };
}
/** What the engine-wide bound was before a test changed it (other runs share this engine): memsw first when raising. */
async function restoreCgroup(v: CgroupValues): Promise<void> {
  await writeFile(CGROUP.memsw, v.memsw).catch(() => undefined);
  await writeFile(CGROUP.memory, v.memory);
  await writeFile(CGROUP.memsw, v.memsw);
  await writeFile(CGROUP.period, v.period);
  await writeFile(CGROUP.quota, v.quota);
}

/** A process on this machine (BuildKit's step processes are not containers docker lists) whose command line has the marker. */
async function processWith(marker: string): Promise<boolean> {
  for (const pid of (await readdir('/proc')).filter((d) => /^\d+$/.test(d))) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(marker) && !cmdline.includes('jest')) return true;
  }
  return false;
}

async function runningWith(marker: string): Promise<boolean> {
  const list = await docker.listContainers();
  return list.some((c) => c.Command.includes(marker));
}
