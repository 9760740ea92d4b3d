import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { silentLogger } from '@slipway/testing/logger';
import { zipOf } from '@slipway/testing/samples';
import { AppsRuntime } from '../apps/apps.runtime';
import { DockerRuntime } from '../containers/docker.runtime';
import { RemovalPool } from '../containers/removal-pool';
import { BuildCaches } from './build-cache';
import { Builder } from './builder';
import { DEFAULT_RUNTIMES } from './detect';
import { DEFAULT_BASE_IMAGES } from './dockerfiles';
import { ImageGate } from './image-gate';

// Issue 30 item 6 on real Docker (20.10, BuildKit through the docker CLI): an app whose install writes 3 MB into its
// package-manager cache mount, built with a bound of 1 MB (its cache is cleared after the build, the next build still
// works) then 1024 MB (kept); the app's removal (AppsRuntime.removeImages, as app removal and workspace teardown call
// it) leaves no cache record of it, and another app's stays.
jest.setTimeout(300_000);
const SOCKET = '/var/run/docker.sock';
const docker = new Docker({ socketPath: SOCKET });
const CA = '/etc/ssl/certs/ca-certificates.crt';
const appA = randomUUID();
const appB = randomUUID();
const disk: Record<string, number> = {};
const caches = new BuildCaches(SOCKET, silentLogger);
const gate = new ImageGate();
const runtime = new DockerRuntime(SOCKET, 'build-cache-test');
let work: string;

/** An app with no dependency whose install (its own postinstall) writes 3 MB into the npm cache mount (/cache). */
const fillingApp = (version: string) =>
  zipOf({
    'package.json': JSON.stringify({
      name: 'cache-filler',
      version,
      scripts: { postinstall: 'dd if=/dev/zero of=/cache/fill bs=1048576 count=3', start: 'node server.js' },
    }),
    'server.js': `require('node:http').createServer((q, s) => s.end('cache ${version}\\n')).listen(process.env.PORT);\n`,
  });

const builder = () =>
  new Builder({
    docker: runtime,
    buildsDir: path.join(work, 'builds'),
    gate,
    images: DEFAULT_BASE_IMAGES,
    runtimes: DEFAULT_RUNTIMES,
    extraCaBundle: CA,
    cpus: 1,
    memoryMb: 1024,
    timeoutMs: 180_000,
    concurrency: 1,
    diskMb: 5120,
    engine: 'buildkit',
    // Other runs share this engine: the engine-wide bound of BuildKit builds is not this test's (build-cgroup.ts).
    buildKitCgroup: null,
    caches,
    appDiskMb: (appId) => Promise.resolve(disk[appId] ?? null),
    logger: silentLogger,
  });

/** Builds `zip` for the app; the log, or the failure with the log. */
async function built(appId: string, zip: Buffer): Promise<{ imageRef: string; log: string }> {
  const zipPath = path.join(work, `${randomUUID()}.zip`);
  await writeFile(zipPath, zip);
  const lines: string[] = [];
  const result = await builder()
    .build({ workspaceId: 'ws-cache-test', appId, deploymentId: randomUUID(), zipPath }, (l) => lines.push(l))
    .catch((e: Error) => new Error(`${e.message}\n${lines.join('\n')}`));
  if (result instanceof Error) throw result;
  return { imageRef: result.imageRef, log: lines.join('\n') };
}

/** The body of GET / of the image, run briefly on 127.0.0.1. */
async function serve(imageRef: string): Promise<string> {
  const c = await docker.createContainer({
    Image: imageRef,
    Env: ['PORT=8080'],
    Labels: { 'slipway.workspace': 'ws-cache-test' },
    HostConfig: { PortBindings: { '8080/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] } },
    ExposedPorts: { '8080/tcp': {} },
  });
  try {
    await c.start();
    const port = (await c.inspect()).NetworkSettings.Ports['8080/tcp']![0]!.HostPort;
    return await answer(`http://127.0.0.1:${port}/`, Date.now() + 20_000);
  } finally {
    await c.remove({ force: true });
  }
}

async function answer(url: string, until: number): Promise<string> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    if (res.ok) return await res.text();
  } catch {
    // not listening yet
  }
  if (Date.now() > until) throw new Error(`${url} never answered`);
  await new Promise((r) => setTimeout(r, 200));
  return answer(url, until);
}

/** Every build cache record of the engine whose description names the app, whatever its type. */
const recordsNaming = async (appId: string) => ((await docker.df()) as { BuildCache: { Description: string }[] | null }).BuildCache?.filter((r) => r.Description.includes(appId)) ?? [];
const sizeOf = async (appId: string) => (await caches.records(appId)).reduce((n, r) => n + r.Size, 0);

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'slipway-build-cache-'));
});
afterAll(async () => {
  const apps = new AppsRuntime(runtime, undefined as never, undefined as never, undefined as never, undefined as never, work, silentLogger, { tmpMb: 64, readySettleMs: 0 }, gate, new RemovalPool(4), caches);
  await apps.removeImages([appA, appB]);
  await rm(work, { recursive: true, force: true });
});

describe("an app's BuildKit caches, bounded by its disk", () => {
  it('past the bound: cleared after the build, with one sentence in the log; the next build still works', async () => {
    disk[appA] = 1;
    const first = await built(appA, fillingApp('1.0.0'));
    expect(first.log).toMatch(/This app's build cache was cleared: it held 3\.\d MB, more than the app's disk size of 1\.0 MB \(\d+(\.\d)? MB freed\); the next build installs and builds without it/);
    expect(await caches.records(appA)).toEqual([]);
    const second = await built(appA, fillingApp('1.0.1'));
    expect(await serve(second.imageRef)).toBe('cache 1.0.1\n');
    expect(await caches.records(appA)).toEqual([]);
  });

  it('within the bound: kept, and the log says how much it holds', async () => {
    disk[appA] = 1024;
    disk[appB] = 1024;
    const a = await built(appA, fillingApp('2.0.0'));
    expect(a.log).toMatch(/This app's build cache holds 3\.\d MB, kept for its next build \(at most 1\.0 GB, the app's disk size\)/);
    await built(appB, fillingApp('2.0.0'));
    expect(await sizeOf(appA)).toBeGreaterThanOrEqual(3 * 1024 * 1024);
    expect(await sizeOf(appB)).toBeGreaterThanOrEqual(3 * 1024 * 1024);
  });

  it("the app's removal leaves no cache record of it, and another app's are untouched", async () => {
    const apps = new AppsRuntime(runtime, undefined as never, undefined as never, undefined as never, undefined as never, work, silentLogger, { tmpMb: 64, readySettleMs: 0 }, gate, new RemovalPool(4), caches);
    await apps.removeImages([appA]);
    expect(await caches.records(appA)).toEqual([]);
    expect(await recordsNaming(appA)).toEqual([]);
    expect(await sizeOf(appB)).toBeGreaterThanOrEqual(3 * 1024 * 1024);
  });
});
