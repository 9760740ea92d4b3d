// The fleet harness itself (issue 31, item 1): three servers, each in its own network namespace with its own engine,
// Caddy and agent, join with one-time tokens over HTTP; an app deployed on one server runs only in that server's engine.
import { randomBytes } from 'node:crypto';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor } from '@slipway/testing/worker';
import { run, startTestFleet, type TestFleet } from '@slipway/testing/fleet';

jest.setTimeout(300_000);

describe('a fleet of three servers on one machine (namespaces, engines, Caddys, agents that join)', () => {
  let fleet: TestFleet;
  let client: ApiClient;

  beforeAll(async () => {
    fleet = await startTestFleet({ servers: 3, name: 'fleet-harness' });
    client = fleet.client();
    await signUp(client);
  });

  afterAll(async () => {
    await fleet?.close();
  });

  it('enrolls every server through the join endpoint with a token of its own, each at its own address', async () => {
    const nodes = await fleet.db.node.findMany({ orderBy: { name: 'asc' }, select: { name: true, grpcAddress: true, publicIpv4: true, status: true, memoryMb: true } });
    expect(nodes).toEqual([
      { name: 'fleet-1', grpcAddress: '198.18.0.11:7443', publicIpv4: ['198.18.0.11'], status: 'online', memoryMb: 4096 },
      { name: 'fleet-2', grpcAddress: '198.18.0.12:7443', publicIpv4: ['198.18.0.12'], status: 'online', memoryMb: 4096 },
      { name: 'fleet-3', grpcAddress: '198.18.0.13:7443', publicIpv4: ['198.18.0.13'], status: 'online', memoryMb: 4096 },
    ]);
    const tokens = await fleet.db.enrollmentToken.findMany({ select: { usedAt: true, nodeId: true } });
    expect(tokens).toHaveLength(3);
    expect(tokens.every((t) => t.usedAt !== null)).toBe(true);
  });

  it("runs an app only in its own server's engine; the others see none of its containers, networks or routes", async () => {
    const ws = await createWorkspace(client);
    const row = await fleet.db.workspace.findUniqueOrThrow({ where: { id: ws.id }, select: { nodeId: true } });
    const owner = fleet.servers.find((s) => s.nodeId === row.nodeId)!;
    const others = fleet.servers.filter((s) => s !== owner);
    const app = (await client.post(`/v1/workspaces/${ws.id}/apps`, { name: `web ${randomBytes(3).toString('hex')}`, kind: 'web', source: 'image', image: fleet.images.v1, memoryMb: 128 })).body;
    const d = (await client.post(`/v1/workspaces/${ws.id}/apps/${app.id}/deployments`, {})).body;
    await waitFor(async () => ((await client.get(`/v1/workspaces/${ws.id}/apps/${app.id}/deployments/${d.id}`)).body.status === 'live' ? true : null), 90_000, 'the deployment');

    expect(await owner.viaIngress(app.url)).toEqual({ status: 200, body: 'v1\n' });
    const label = { label: [`slipway.app=${app.id}`] };
    expect(await owner.docker.listContainers({ filters: label })).toHaveLength(1);
    const ownerNetworks = (await owner.docker.listNetworks()).filter((n) => n.Labels?.['slipway.workspace'] === ws.id);
    expect(ownerNetworks).toHaveLength(1);
    for (const s of others) {
      expect(await s.docker.listContainers({ all: true, filters: label })).toHaveLength(0);
      expect((await s.docker.listNetworks()).filter((n) => n.Labels?.['slipway.workspace'] === ws.id)).toHaveLength(0);
      const routes = await s.exec(['curl', '-fsS', 'http://127.0.0.1:2019/config/apps/http/servers/ingress/routes']);
      expect(routes.stdout).not.toContain(`app-${app.id}`);
    }
    // The host's own engine never saw it either.
    const host = await run(['docker', 'ps', '-aq', '--filter', `label=slipway.app=${app.id}`]);
    expect(host.stdout.trim()).toBe('');
  });
});
