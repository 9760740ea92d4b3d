// The container layer's create-or-keep (`ensure`, recreated on its data when the spec hash changes) and throw-away
// runs (`throwaway`: always removed, an earlier agent's leftovers removed first), with an exec readiness probe, on
// real Docker.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppError, LABELS } from '@slipway/core';
import { TEST_SERVICES } from '@slipway/testing';
import { ensureTestImage, TEST_IMAGE } from '@slipway/testing/agent';
import { silentLogger } from '@slipway/testing/logger';
import Docker from 'dockerode';
import { Containers, THROWAWAY_LABEL } from './containers';
import { DockerRuntime } from './docker.runtime';
import { workspaceNetworkName, WorkspaceNetworks } from './networks';
import type { Readiness } from './readiness';
import type { ContainerSpec } from './spec';

jest.setTimeout(120_000);

describe('container lifecycle: ensure and throwaway (real Docker)', () => {
  const docker = new Docker({ socketPath: TEST_SERVICES.dockerSocket });
  const platformId = `test-${randomUUID().slice(0, 8)}`;
  const runtime = new DockerRuntime(TEST_SERVICES.dockerSocket, platformId);
  const networks = new WorkspaceNetworks(runtime, { range: '203.0.113.0/24', subnetPrefix: 29 }, silentLogger);
  const containers = new Containers(runtime, networks, silentLogger);
  const workspaceId = randomUUID();
  let dir: string;

  const spec = (name: string, extra: Partial<ContainerSpec> = {}): ContainerSpec => ({
    name,
    image: TEST_IMAGE,
    workspaceId,
    labels: { [LABELS.database]: name },
    env: {},
    limits: { cpuMillis: 100, memoryMb: 32 },
    mounts: [{ hostPath: dir, containerPath: '/data' }],
    port: null,
    command: ['/bin/busybox', 'sh', '-c', 'touch /data/ready; exec /bin/busybox sleep 600'],
    capabilities: ['CHOWN'],
    ...extra,
  });
  // The workload's own client inside the container: here, its marker file exists.
  const readiness: Readiness = { probe: { kind: 'exec', cmd: ['/bin/busybox', 'test', '-e', '/data/ready'] }, timeoutMs: 10_000, settleMs: 0, hostPort: 0, subject: 'The test engine' };

  beforeAll(async () => {
    await ensureTestImage(docker);
    dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-lifecycle-'));
  });

  afterAll(async () => {
    for (const c of await docker.listContainers({ all: true, filters: { label: [`${LABELS.platform}=${platformId}`] } })) await docker.getContainer(c.Id).remove({ force: true });
    await docker.getNetwork(workspaceNetworkName(workspaceId)).remove().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  it('creates, keeps on the same hash, recreates on its data on another, and leaves a stopped one stopped', async () => {
    const name = `slipway-lifecycle-${randomUUID().slice(0, 8)}`;
    const first = await containers.ensure(spec(name), readiness, 'h1', { graceMs: 1_000 });
    expect(first.created).toBe(true);
    const info = await docker.getContainer(first.id).inspect();
    expect(info.State.Running).toBe(true);
    expect(info.Config.Labels).toMatchObject({ [LABELS.platform]: platformId, [LABELS.workspace]: workspaceId, 'slipway.spec': 'h1' });
    expect(info.HostConfig).toMatchObject({ CapDrop: ['ALL'], CapAdd: ['CHOWN'], SecurityOpt: ['no-new-privileges:true'], PidsLimit: 512, RestartPolicy: { Name: 'unless-stopped' } });
    await writeFile(path.join(dir, 'rows'), 'kept');

    const same = await containers.ensure(spec(name), readiness, 'h1', { graceMs: 1_000 });
    expect(same).toEqual({ id: first.id, created: false });

    const replaced: string[] = [];
    const bigger = await containers.ensure(spec(name, { limits: { cpuMillis: 100, memoryMb: 64 } }), readiness, 'h2', { graceMs: 1_000, beforeReplace: async () => void replaced.push(name) });
    expect(bigger.created).toBe(true);
    expect(bigger.id).not.toBe(first.id);
    expect(replaced).toEqual([name]);
    await expect(docker.getContainer(first.id).inspect()).rejects.toMatchObject({ statusCode: 404 });
    expect((await docker.getContainer(bigger.id).inspect()).HostConfig.Memory).toBe(64 * 1024 * 1024);
    expect(await readFile(path.join(dir, 'rows'), 'utf8')).toBe('kept');

    const stopped = await containers.ensure(spec(name, { limits: { cpuMillis: 100, memoryMb: 64 } }), readiness, 'h2', { graceMs: 1_000, stopped: true });
    expect(stopped.id).toBe(bigger.id);
    expect((await docker.getContainer(bigger.id).inspect()).State.Running).toBe(false);
  });

  it('fails a container its exec probe never passes with the reason, and removes it (its data stays)', async () => {
    const name = `slipway-lifecycle-${randomUUID().slice(0, 8)}`;
    const never: Readiness = { ...readiness, probe: { kind: 'exec', cmd: ['/bin/busybox', 'test', '-e', '/data/never'] }, timeoutMs: 1_500 };
    const err = await containers.ensure(spec(name), never, 'h1', { graceMs: 1_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('rollout_failed');
    expect((err as AppError).message).toMatch(/^The test engine did not answer within 2 s: \/bin\/busybox inside the container, last try: \/bin\/busybox exit 1/);
    expect(await runtime.containerByName(name)).toBeNull();
  });

  it('runs a throw-away container with the hardening and no network, removes it even when the work fails, and removes an earlier agent’s leftovers first', async () => {
    const leftover = await docker.createContainer({
      Image: TEST_IMAGE,
      name: `slipway-leftover-${randomUUID().slice(0, 8)}`,
      Labels: { [LABELS.platform]: platformId, [LABELS.workspace]: 'backup-verify', [THROWAWAY_LABEL]: 'an-earlier-agent-run' },
    });
    const name = `slipway-throwaway-${randomUUID().slice(0, 8)}`;
    let seen: Docker.ContainerInspectInfo | null = null;
    const result = await containers.throwaway(spec(name, { workspaceId: 'backup-verify' }), readiness, async (id) => {
      seen = await docker.getContainer(id).inspect();
      return 'done';
    });
    expect(result).toBe('done');
    expect(seen!.HostConfig).toMatchObject({ NetworkMode: 'none', CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges:true'], PidsLimit: 512, RestartPolicy: { Name: 'no' } });
    expect(seen!.State.Running).toBe(true);
    await expect(leftover.inspect()).rejects.toMatchObject({ statusCode: 404 });
    expect(await runtime.containerByName(name)).toBeNull();

    await expect(containers.throwaway(spec(name, { workspaceId: 'backup-verify' }), readiness, async () => Promise.reject(new Error('the load failed')))).rejects.toThrow('the load failed');
    expect(await runtime.containerByName(name)).toBeNull();
  });
});
