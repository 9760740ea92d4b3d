import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Docker from 'dockerode';
import { getWithHost } from './http';
import { TEST_SERVICES } from './services';

// The services every integration test relies on, exercised the way the platform uses them.
describe('platform services (real Docker and Caddy)', () => {
  const docker = new Docker({ socketPath: TEST_SERVICES.dockerSocket });

  it('runs a container from the locally built Debian base image', async () => {
    const container = await docker.createContainer({
      Image: 'slipway/debian:bookworm',
      Cmd: ['cat', '/etc/debian_version'],
      Labels: { 'slipway.test': '1' },
      HostConfig: { AutoRemove: false, NetworkMode: 'none' },
    });
    try {
      await container.start();
      const { StatusCode } = (await container.wait()) as { StatusCode: number };
      const logs = (await container.logs({ stdout: true, stderr: true })).toString('utf8');
      expect(StatusCode).toBe(0);
      expect(logs).toMatch(/12\.\d+/);
    } finally {
      await container.remove({ force: true });
    }
  });

  describe('Caddy ingress', () => {
    let upstream: Server;
    const id = `test-${randomBytes(4).toString('hex')}`;
    const host = `${id}.test.localhost`;

    beforeAll(async () => {
      upstream = createServer((req, res) => res.end(`hello from upstream, host ${req.headers.host}`));
      upstream.listen(0, '127.0.0.1');
      await new Promise((r) => upstream.once('listening', r));
    });
    afterAll(async () => {
      upstream.close();
      await fetch(`${TEST_SERVICES.caddyAdminUrl}/id/${id}`, { method: 'DELETE' }).catch(() => undefined);
    });

    it('routes a host added through the admin API, and stops when it is removed', async () => {
      const route = {
        '@id': id,
        match: [{ host: [host] }],
        handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: `127.0.0.1:${(upstream.address() as AddressInfo).port}` }] }],
      };
      // App routes go in front of the bootstrap's 404 fallback route.
      const added = await fetch(`${TEST_SERVICES.caddyAdminUrl}/config/apps/http/servers/ingress/routes/0`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(route),
      });
      expect(added.status).toBe(200);

      const ingress = `http://127.0.0.1:${TEST_SERVICES.ingressPort}/`;
      expect(await getWithHost(ingress, host)).toEqual({ status: 200, body: `hello from upstream, host ${host}` });

      expect((await fetch(`${TEST_SERVICES.caddyAdminUrl}/id/${id}`, { method: 'DELETE' })).status).toBe(200);
      expect((await getWithHost(ingress, host)).status).toBe(404);
    });
  });
});
