// A fleet of three servers (issue 31, items 1 and 2): each in its own network namespace with its own engine, Caddy and
// agent, joined with one-time tokens over HTTP; workspaces placed by free room (the server offering less memory gets
// fewer), cordon, 503 no_capacity; an app deployed on one server runs only in that server's engine.
import { randomBytes } from 'node:crypto';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor } from '@slipway/testing/worker';
import { run, startTestFleet, type FleetServer, type TestFleet } from '@slipway/testing/fleet';

jest.setTimeout(300_000);

describe('a fleet of three servers on one machine (namespaces, engines, Caddys, agents that join)', () => {
  let fleet: TestFleet;
  let client: ApiClient;

  beforeAll(async () => {
    fleet = await startTestFleet({ servers: [{ memoryMb: 1024 }, { memoryMb: 1024 }, { memoryMb: 768 }], name: 'fleet-harness' });
    client = fleet.client();
    await signUp(client);
  });

  afterAll(async () => {
    await fleet?.close();
  });

  /** True once the resource at `path` has `status`; else null. */
  const whenStatus = async (path: string, status: string) => ((await client.get(path)).body.status === status ? true : null);
  /** The answer for `url` through server `s`'s ingress once it is 200; else null. */
  const okThrough = async (s: FleetServer, url: string) => {
    const got = await s.viaIngress(url).catch(() => null);
    return got?.status === 200 ? got : null;
  };

  it('enrolls every server through the join endpoint with a token of its own, each at its own address', async () => {
    const nodes = await fleet.db.node.findMany({ orderBy: { name: 'asc' }, select: { name: true, grpcAddress: true, publicIpv4: true, status: true, memoryMb: true } });
    expect(nodes).toEqual([
      { name: 'fleet-1', grpcAddress: '198.18.0.11:7443', publicIpv4: ['198.18.0.11'], status: 'online', memoryMb: 1024 },
      { name: 'fleet-2', grpcAddress: '198.18.0.12:7443', publicIpv4: ['198.18.0.12'], status: 'online', memoryMb: 1024 },
      { name: 'fleet-3', grpcAddress: '198.18.0.13:7443', publicIpv4: ['198.18.0.13'], status: 'online', memoryMb: 768 },
    ]);
    const tokens = await fleet.db.enrollmentToken.findMany({ select: { usedAt: true, nodeId: true } });
    expect(tokens).toHaveLength(3);
    expect(tokens.every((t) => t.usedAt !== null)).toBe(true);
  });

  let served: { app: { id: string; url: string; workspaceId: string }; owner: FleetServer; others: FleetServer[] } | undefined;
  const nodeOf = async (workspaceId: string) => {
    const row = await fleet.db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { node: { select: { name: true } } } });
    return row.node!.name;
  };
  /** Creates workspaces until the API refuses one (at most 10), and returns that answer. */
  const createUntilRefused = async () => {
    for (let i = 0; i < 10; i++) {
      const r = await client.post('/v1/workspaces', { name: 'filling' });
      if (r.status !== 201) return r;
    }
    throw new Error('ten more workspaces were placed: the server never filled up');
  };
  const adminJson = async (...args: string[]) => {
    const r = await fleet.admin(...args, '--json');
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    return JSON.parse(r.stdout);
  };

  it('spreads ten workspaces by free room: the server offering less memory gets fewer (each counts its first app, 128 MB)', async () => {
    const placed: string[] = [];
    for (let i = 0; i < 10; i++) placed.push(await nodeOf((await createWorkspace(client)).id));
    const count = (name: string) => placed.filter((n) => n === name).length;
    expect({ a: count('fleet-1'), b: count('fleet-2'), c: count('fleet-3') }).toEqual({ a: 4, b: 4, c: 2 });
    const nodes = await adminJson('nodes');
    expect(nodes.map((n: { name: string; placed: unknown }) => [n.name, n.placed])).toEqual([
      ['fleet-1', { workspaces: 4, apps: 0, databases: 0, reservations: 0 }],
      ['fleet-2', { workspaces: 4, apps: 0, databases: 0, reservations: 0 }],
      ['fleet-3', { workspaces: 2, apps: 0, databases: 0, reservations: 0 }],
    ]);
  });

  it('places nothing on a cordoned server; a fleet without room answers 503 no_capacity naming the resource', async () => {
    expect(await adminJson('cordon', 'fleet-1')).toMatchObject({ name: 'fleet-1', cordoned: true });
    const human = await fleet.admin('nodes');
    expect(human.stdout).toMatch(/fleet-1\s+online,cordoned/);
    for (let i = 0; i < 3; i++) expect(await nodeOf((await createWorkspace(client)).id)).not.toBe('fleet-1');
    await adminJson('cordon', 'fleet-2');
    await adminJson('cordon', 'fleet-3');
    const none = await client.post('/v1/workspaces', { name: 'nowhere' });
    expect(none.status).toBe(503);
    expect(none.body.error.code).toBe('node_unavailable');
    // Only fleet-3 open: it fills up (768 MB, 128 MB each), then the API says what is missing.
    await adminJson('uncordon', 'fleet-3');
    const answer = await createUntilRefused();
    expect(answer.status).toBe(503);
    expect(answer.body.error).toMatchObject({ code: 'no_capacity', details: [{ resource: 'memory', requested: 128, available: 0 }] });
    expect(answer.body.error.message).toMatch(/needs 128 MB of memory and the roomiest server has 0 free/);
    expect((await fleet.admin('uncordon', 'nowhere')).code).not.toBe(0);
    await adminJson('uncordon', 'fleet-1');
    await adminJson('uncordon', 'fleet-2');
  });

  it("runs an app only in its own server's engine; the others see none of its containers, networks or routes", async () => {
    const ws = await createWorkspace(client);
    const row = await fleet.db.workspace.findUniqueOrThrow({ where: { id: ws.id }, select: { nodeId: true } });
    const owner = fleet.servers.find((s) => s.nodeId === row.nodeId)!;
    const others = fleet.servers.filter((s) => s !== owner);
    const app = (await client.post(`/v1/workspaces/${ws.id}/apps`, { name: `web ${randomBytes(3).toString('hex')}`, kind: 'web', source: 'image', image: fleet.images.v1, memoryMb: 128 })).body;
    const d = (await client.post(`/v1/workspaces/${ws.id}/apps/${app.id}/deployments`, {})).body;
    await waitFor(() => whenStatus(`/v1/workspaces/${ws.id}/apps/${app.id}/deployments/${d.id}`, 'live'), 90_000, 'the deployment');

    expect(await owner.viaIngress(app.url)).toEqual({ status: 200, body: 'v1\n' });
    expect(await owner.routes(app)).toBe(true);
    const label = { label: [`slipway.app=${app.id}`] };
    expect(await owner.docker.listContainers({ filters: label })).toHaveLength(1);
    const ownerNetworks = (await owner.docker.listNetworks()).filter((n) => n.Labels?.['slipway.workspace'] === ws.id);
    expect(ownerNetworks).toHaveLength(1);
    for (const s of others) {
      expect(await s.docker.listContainers({ all: true, filters: label })).toHaveLength(0);
      expect((await s.docker.listNetworks()).filter((n) => n.Labels?.['slipway.workspace'] === ws.id)).toHaveLength(0);
      expect(await s.routes(app)).toBe(false);
    }
    // The host's own engine never saw it either.
    const host = await run(['docker', 'ps', '-aq', '--filter', `label=slipway.app=${app.id}`]);
    expect(host.stdout.trim()).toBe('');
    served = { app, owner, others };
  });

  it("serves the app by its one URL through every other server's ingress, proxied to its owner over TLS checked against the platform's CA", async () => {
    const { app, owner, others } = served!;
    // What the repeatable routes.sync job does (every 30 s): every server gets its own routes and everybody else's.
    await fleet.worker.services.routing.syncAllRoutes();
    for (const s of others) {
      const r = await waitFor(() => okThrough(s, app.url), 15_000, `${app.url} through ${s.name}`);
      expect(r).toEqual({ status: 200, body: 'v1\n' });
      // Their own engines still run nothing of it: the request crossed to the owner.
      expect(await s.docker.listContainers({ all: true, filters: { label: [`slipway.app=${app.id}`] } })).toHaveLength(0);
    }
    // The owner's mesh listener speaks TLS with its agent certificate: a client trusting the platform's CA and
    // expecting the owner's name is answered.
    const tlsName = `${owner.name}.agent.slipway`;
    const mesh = (...trust: string[]) =>
      others[0]!.exec(['curl', '-sS', '-o', '/dev/null', '-w', '%{http_code}', ...trust, '--resolve', `${tlsName}:7444:${owner.address}`, '-H', `Host: ${new URL(app.url).host}`, `https://${tlsName}:7444/`]);
    expect((await mesh('--cacert', `/var/lib/slipway-fleet/${others[0]!.index}/agent/tls/ca.crt`)).stdout).toBe('200');
    expect((await mesh()).code).toBe(60); // not a certificate the system trusts: only the platform's CA vouches for it
    // A server's mesh listener serves only its own apps: a request that crossed once is never forwarded again.
    const notOwner = others[1]!;
    const otherName = `${notOwner.name}.agent.slipway`;
    const crossed = await others[0]!.exec(['curl', '-sS', '-w', '%{http_code}', '--cacert', `/var/lib/slipway-fleet/${others[0]!.index}/agent/tls/ca.crt`, '--resolve', `${otherName}:7444:${notOwner.address}`, '-H', `Host: ${new URL(app.url).host}`, `https://${otherName}:7444/`]);
    expect(crossed.stdout).toBe('No app of this server is served at this address.\n404');
    // A stopped app leaves every server's routes at the next sync.
    expect((await client.post(`/v1/workspaces/${app.workspaceId}/apps/${app.id}/stop`, {})).status).toBeLessThan(300);
    await waitFor(() => whenStatus(`/v1/workspaces/${app.workspaceId}/apps/${app.id}`, 'stopped'), 30_000, 'the app to stop');
    await fleet.worker.services.routing.syncAllRoutes();
    for (const s of others) expect((await s.viaIngress(app.url)).status).toBe(404);
  });
});
