// Custom domains on a fleet of three servers (issue 31, item 3; docs/decisions/0034-custom-domains-across-servers.md):
// the DNS instructions name every server serving ingress, the domain verifies when its A record points at a server
// that is not the app's, the app on server C is served by its custom domain over HTTPS through A's, B's and C's
// ingress, and its certificate comes from ONE order (Pebble, a real ACME CA): the same serial through every server.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor } from '@slipway/testing/worker';
import { httpsVia, startTestFleet, type FleetServer, type ServedOverHttps as Served, type TestFleet } from '@slipway/testing/fleet';

jest.setTimeout(420_000);

/** The answer through a server's plain ingress once it is a 200; else null (polled). */
const okThrough = async (s: FleetServer, url: string) => {
  const r = await s.viaIngress(url).catch(() => null);
  return r?.status === 200 ? r : null;
};

/** The resource at `path` once `done` says so; else null (polled). */
const whenBody = async <T>(client: ApiClient, path: string, done: (body: T) => boolean) => {
  const body = (await client.get(path)).body as T;
  return done(body) ? body : null;
};

/** POST …/verify (a write: it asks the owner's server for the certificate state now) once `done` holds; else null (polled). */
const whenVerified = async <T>(client: ApiClient, path: string, done: (body: T) => boolean) => {
  await new Promise((r) => setTimeout(r, 500));
  const body = (await client.post(`${path}/verify`, {})).body as T;
  return done(body) ? body : null;
};

/** The answer through `address` once it is a 200 with a certificate the CA vouches for; else null (polled). */
const servedVia = async (address: string, hostname: string, ca: string) => {
  const r = await httpsVia(address, hostname, ca).catch(() => null);
  return r?.status === 200 ? r : null;
};

const FLEET_ROOT = process.env.SLIPWAY_FLEET_ROOT ?? '/var/lib/slipway-fleet';
/**
 * Whether a server's Caddy manages the hostname's certificate: its TLS policy names it (Caddy alone), or, with HAProxy
 * in front (decision 0040 step 4), the agent's hosts folder lists it (its on-demand policy's ask answers yes).
 */
const managedOn = async (s: FleetServer, hostname: string) => {
  const policies = (await s.exec(['curl', '-fsS', 'http://127.0.0.1:2019/config/apps/tls/automation/policies'])).stdout;
  return policies.includes(hostname) || existsSync(path.join(FLEET_ROOT, String(s.index), 'agent', 'domain-hosts', `${hostname}.host`));
};

describe('custom domains on a fleet of three servers (one certificate order, served through every server)', () => {
  let fleet: TestFleet;
  let client: ApiClient;
  let a: FleetServer;
  let b: FleetServer;
  let c: FleetServer;

  beforeAll(async () => {
    fleet = await startTestFleet({ servers: 3, name: 'fleet-domains', acme: true });
    client = fleet.client();
    await signUp(client);
    [a, b, c] = fleet.servers as [FleetServer, FleetServer, FleetServer];
  });

  afterAll(async () => {
    await fleet?.close();
  });

  it("serves an app on C by its URL and its custom domain through A's and B's ingress, with the one certificate C obtained", async () => {
    // The workspace lands on C (A and B cordoned while it is placed).
    await fleet.admin('cordon', a.name);
    await fleet.admin('cordon', b.name);
    const ws = await createWorkspace(client);
    await fleet.admin('uncordon', a.name);
    await fleet.admin('uncordon', b.name);
    expect((await fleet.db.workspace.findUniqueOrThrow({ where: { id: ws.id }, select: { nodeId: true } })).nodeId).toBe(c.nodeId);
    const base = `/v1/workspaces/${ws.id}/apps`;
    const app = (await client.post(base, { name: `shop ${randomBytes(3).toString('hex')}`, kind: 'web', source: 'image', image: fleet.images.v1, memoryMb: 128 })).body;
    const d = (await client.post(`${base}/${app.id}/deployments`, {})).body;
    await waitFor(() => whenBody<{ status: string }>(client, `${base}/${app.id}/deployments/${d.id}`, (x) => x.status === 'live'), 90_000, 'the deployment');
    await fleet.worker.services.routing.syncAllRoutes();
    for (const s of [a, b]) {
      const byUrl = await waitFor(() => okThrough(s, app.url), 15_000, `${app.url} through ${s.name}`);
      expect(byUrl).toEqual({ status: 200, body: 'v1\n' });
    }

    // The DNS instructions name every server serving ingress.
    const hostname = `shop-${randomBytes(3).toString('hex')}.example.test`;
    const created = await client.post(`${base}/${app.id}/domains`, { hostname });
    expect(created.status).toBe(201);
    expect(created.body.dns.a).toEqual([a.address, b.address, c.address]);

    // Its A record points at A only (not the app's server): the check from C passes.
    await fleet.acme!.dns.set(hostname, { a: [a.address] });
    await fleet.acme!.dns.set(`_svc.${hostname}`, { txt: [created.body.dns.txtValue] });
    const verified = await client.post(`${base}/${app.id}/domains/${created.body.id}/verify`, {});
    expect(verified.body).toMatchObject({ status: 'verified', routed: true, check: { a: [a.address], error: null } });

    // C's Caddy orders the certificate; Pebble's HTTP-01 validation connects to A (the A record), which forwards the
    // challenge to C. A verify asks C for the state; a read answers what was collected (issue 34: no read asks a server).
    const domainPath = `${base}/${app.id}/domains/${created.body.id}`;
    const issued = await waitFor(
      () => whenVerified<{ certificate: { status: string; issuer: string } }>(client, domainPath, (x) => x.certificate.status === 'issued'),
      120_000,
      `the certificate of ${hostname}`,
    );
    expect(issued.certificate.issuer).toMatch(/Pebble/);
    expect((await client.get(domainPath)).body.certificate).toEqual(issued.certificate);

    // The sweep hands C's chain and key to A and B with their routes (what domains.sweep does every minute).
    await fleet.worker.services.domains.sweep();
    const root = await fleet.acme!.issuingRoot();
    const through = new Map<string, Served>();
    for (const s of [c, a, b]) through.set(s.name, await waitFor(() => servedVia(s.address, hostname, root), 30_000, `https://${hostname} through ${s.name}`));
    for (const s of [a, b, c]) expect(through.get(s.name)).toMatchObject({ status: 200, body: 'v1\n' });
    // One certificate: the same serial through every server's ingress, and one issued by Pebble in all.
    expect(new Set([...through.values()].map((r) => r.serial)).size).toBe(1);
    const log = await fleet.acme!.log();
    expect(log.match(/Issued certificate serial/g)).toHaveLength(1);

    // Plain HTTP through a server that does not own it redirects to HTTPS.
    expect((await a.viaIngress(`http://${hostname}/`)).status).toBe(308);
    // A and B never order it (no policy names it, Caddy is told to skip it) and run nothing of the app: their route
    // for the name goes to C's mesh listener.
    for (const s of [a, b]) {
      const policies = await s.exec(['curl', '-fsS', 'http://127.0.0.1:2019/config/apps/tls/automation/policies']);
      expect(policies.stdout).not.toContain(hostname);
      const routes = await s.exec(['curl', '-fsS', 'http://127.0.0.1:2019/config/apps/http/servers/slipway-https/routes']);
      expect(routes.stdout).toContain(`domains-remote-${app.id}`);
      expect(routes.stdout).not.toContain(`domains-app-${app.id}`);
      expect(routes.stdout).toContain(`${c.address}:7444`);
      expect(await s.docker.listContainers({ all: true, filters: { label: [`slipway.app=${app.id}`] } })).toHaveLength(0);
    }
    expect({ a: await managedOn(a, hostname), b: await managedOn(b, hostname), c: await managedOn(c, hostname) }).toEqual({ a: false, b: false, c: true });

    // Removed: it leaves every server at once (the owner and, with the mesh, the others).
    expect((await client.delete(domainPath)).status).toBe(200);
    for (const s of [a, b, c]) {
      const routes = await s.exec(['curl', '-fsS', 'http://127.0.0.1:2019/config/apps/http/servers/slipway-https/routes']);
      expect(routes.stdout).not.toContain(hostname);
    }
  });
});
