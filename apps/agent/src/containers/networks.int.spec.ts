// Workspace networks on real Docker: one per workspace under concurrency, healing of duplicates, the agent's own
// subnet range (more workspaces than the engine's 31 default pools, and a clear failure when the range is full).
import { randomUUID } from 'node:crypto';
import { AppError, LABELS } from '@slipway/core';
import { TEST_SERVICES } from '@slipway/testing';
import Docker from 'dockerode';
import { ensureTestImage, TEST_IMAGE } from '@slipway/testing/agent';
import { silentLogger } from '@slipway/testing/logger';
import { Containers } from './containers';
import { DockerRuntime } from './docker.runtime';
import { legacyNetworkName, WorkspaceNetworks, workspaceNetworkName } from './networks';
import type { ContainerSpec } from './spec';

jest.setTimeout(120_000);

/** The status of a HEAD on `url`, retried for about 2 s while nothing answers (0: never answered). */
async function statusOf(url: string): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const status = await fetch(url, { method: 'HEAD' }).then((r) => r.status, () => 0);
    if (status) return status;
    await new Promise((r) => setTimeout(r, 100));
  }
  return 0;
}

/** A network with a subnet of the agent's own range (198.51.100.0/24). */
const inOurRange = (n: Docker.NetworkInspectInfo) => (n.IPAM?.Config ?? []).some((cfg) => cfg.Subnet?.startsWith('198.51.100.'));

describe('workspace networks (real Docker)', () => {
  const docker = new Docker({ socketPath: TEST_SERVICES.dockerSocket });
  const platformId = `test-${randomUUID().slice(0, 8)}`;
  const runtime = new DockerRuntime(TEST_SERVICES.dockerSocket, platformId);
  // Ranges of their own (documentation addresses), away from the default range other test runs use.
  const networks = new WorkspaceNetworks(runtime, { range: '198.51.100.0/24', subnetPrefix: 29 }, silentLogger);
  const containers = new Containers(runtime, networks, silentLogger);
  const workspaces: string[] = [];
  const newWorkspace = () => {
    const id = randomUUID();
    workspaces.push(id);
    return id;
  };
  const spec = (workspaceId: string, name = `slipway-nettest-${randomUUID().slice(0, 8)}`): ContainerSpec => ({
    name,
    image: TEST_IMAGE,
    workspaceId,
    labels: { [LABELS.app]: 'nettest' },
    env: {},
    limits: { cpuMillis: 100, memoryMb: 32 },
    mounts: [],
    port: null,
  });
  const sleeper = async (workspaceId: string, networkId: string, start = true) => {
    const c = await docker.createContainer({ Image: TEST_IMAGE, Cmd: ['/bin/busybox', 'sleep', '600'], Labels: { [LABELS.workspace]: workspaceId }, HostConfig: { NetworkMode: networkId } });
    if (start) await c.start();
    return c.id;
  };
  const networksOf = async (workspaceId: string) =>
    (await docker.listNetworks()).filter((n) => n.Labels?.[LABELS.workspace] === workspaceId || n.Name === workspaceNetworkName(workspaceId) || n.Name === legacyNetworkName(workspaceId));

  beforeAll(async () => {
    await ensureTestImage(docker);
  });

  afterAll(async () => {
    for (const ws of workspaces) {
      for (const c of await docker.listContainers({ all: true, filters: { label: [`${LABELS.workspace}=${ws}`] } })) await docker.getContainer(c.Id).remove({ force: true });
      for (const n of await networksOf(ws)) await docker.getNetwork(n.Id).remove().catch(() => undefined);
    }
  });

  it('gives concurrent first containers of one workspace one network, found again by labels after a restart', async () => {
    const ws = newWorkspace();
    const ids = await Promise.all([0, 1, 2].map(() => containers.launch({ ...spec(ws), labels: { [LABELS.app]: 'nettest' } })));
    const found = await networksOf(ws);
    expect(found).toHaveLength(1);
    const net = found[0]!;
    expect(net.Labels).toMatchObject({ [LABELS.workspace]: ws, [LABELS.platform]: platformId, 'slipway.network': 'workspace' });
    expect(net.IPAM?.Config?.[0]?.Subnet).toMatch(/^198\.51\.100\.\d+\/29$/);
    for (const id of ids) {
      const info = await docker.getContainer(id).inspect();
      expect(Object.values(info.NetworkSettings.Networks).map((n) => n.NetworkID)).toEqual([net.Id]);
      expect(info.Config.Labels).toMatchObject({ [LABELS.platform]: platformId, [LABELS.workspace]: ws });
    }
    // An agent restarted (a new instance, no memory) finds the same network.
    const again = new WorkspaceNetworks(runtime, { range: '198.51.100.0/24', subnetPrefix: 29 }, silentLogger);
    expect(await again.ensure(ws)).toBe(net.Id);
  });

  it('heals a workspace holding same-named networks: containers join the one kept and keep serving, extras go once empty', async () => {
    const ws = newWorkspace();
    // What Docker 20.10 made of concurrent creates by name: three networks of one name (the old labels, default pools).
    // (Subnets of their own: the engine's default pools may be used up by other runs on this engine.)
    let n = 0;
    const make = () =>
      docker.createNetwork({ Name: legacyNetworkName(ws), Driver: 'bridge', Labels: { [LABELS.workspace]: ws }, IPAM: { Driver: 'default', Config: [{ Subnet: `192.0.2.${32 + 8 * n++}/29` }] } }).then((x) => x.id);
    const a = await make();
    // A web app running on the first one, its port published on 127.0.0.1 (made before the duplicates, so it started).
    const web = await docker.createContainer({
      Image: TEST_IMAGE,
      Cmd: ['/bin/busybox', 'httpd', '-f', '-p', '8080', '-h', '/bin'],
      Labels: { [LABELS.workspace]: ws },
      ExposedPorts: { '8080/tcp': {} },
      HostConfig: { NetworkMode: a, PortBindings: { '8080/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] } },
    });
    await web.start();
    const port = (await web.inspect()).NetworkSettings.Ports['8080/tcp']![0]!.HostPort;
    const answers = () => statusOf(`http://127.0.0.1:${port}/busybox`);
    expect(await answers()).toBe(200);
    const [b, c] = [await make(), await make()];
    const other = await sleeper(ws, b, false);
    expect(await networksOf(ws)).toHaveLength(3);
    // Broken as the issue found it: a container on a shared name never starts.
    await expect(docker.getContainer(other).start()).rejects.toThrow(/ambiguous/);

    const kept = await networks.ensure(ws);
    expect([a, b, c]).not.toContain(kept);
    // b and c go (b's container was stopped: taken off it); a keeps its running container, now also on the kept one.
    expect((await networksOf(ws)).map((x) => x.Id).sort()).toEqual([a, kept].sort());
    const onNets = Object.values((await web.inspect()).NetworkSettings.Networks).map((x) => x.NetworkID);
    expect(onNets.sort()).toEqual([a, kept].sort());
    expect(await answers()).toBe(200); // still serving on its published port
    expect(Object.keys((await docker.getContainer(other).inspect()).NetworkSettings.Networks)).toEqual([workspaceNetworkName(ws)]);
    await docker.getContainer(other).start(); // the one that could not start now starts
    expect((await docker.getContainer(other).inspect()).State.Running).toBe(true);

    // The next container lands on the kept network; once the web app is replaced, the last extra goes too.
    const next = await containers.launch(spec(ws));
    expect(Object.values((await docker.getContainer(next).inspect()).NetworkSettings.Networks).map((x) => x.NetworkID)).toEqual([kept]);
    await web.remove({ force: true });
    expect(await networks.ensure(ws)).toBe(kept);
    expect((await networksOf(ws)).map((x) => x.Id)).toEqual([kept]);
  });

  it("holds more workspaces than the engine's default pools, then fails clearly when its own range is full", async () => {
    // 198.51.100.0/24 in /29s: 32 subnets, one more than the engine's 31 default pools; two were taken above.
    const taken = (await docker.listNetworks()).filter(inOurRange).length;
    const room = 32 - taken;
    const made: string[] = [];
    for (let i = 0; i < room; i++) made.push(await networks.ensure(newWorkspace()));
    expect(new Set(made).size).toBe(room);
    expect(taken + made.length).toBeGreaterThan(31);
    const full = await networks.ensure(newWorkspace()).catch((e: unknown) => e);
    expect(full).toBeInstanceOf(AppError);
    expect(full).toMatchObject({ code: 'rollout_failed', message: 'The server has no free network for this workspace; the operator has been told' });
    // Space comes back as workspaces go.
    const freed = workspaces[workspaces.length - 2]!;
    expect(await networks.remove(freed)).toEqual({ removed: 1, inUse: 0 });
    expect(await networks.ensure(newWorkspace())).toEqual(expect.any(String));
  });
});
