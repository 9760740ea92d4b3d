import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { AppError, LABELS, type ContainerExitEvent } from '@slipway/core';
import { CertificateAuthority, createCertificateAuthority, issueKeyAndCert } from '@slipway/pki';
import { AgentConnection, loadAgentProto, loadFilesProto, loadHealthProto } from '@slipway/proto';
import { TEST_SERVICES } from '@slipway/testing';
import Docker from 'dockerode';
import { ensureTestImage, openTestCa, startTestAgent, TEST_IMAGE, type TestAgent } from './testing';

jest.setTimeout(60_000);

describe('agent over gRPC with mutual TLS (real TLS on 127.0.0.1, real Docker)', () => {
  let ca: CertificateAuthority;
  let caDir: string;
  let t: TestAgent;
  let conn: AgentConnection;
  const docker = new Docker({ socketPath: TEST_SERVICES.dockerSocket });
  const workspaceId = randomUUID();

  beforeAll(async () => {
    ({ ca, dir: caDir } = await openTestCa());
    t = await startTestAgent(ca, { nodeName: 'agent-spec' });
    conn = new AgentConnection(t.target, ca.client);
  });

  afterAll(async () => {
    conn.close();
    const left = await docker.listContainers({ all: true, filters: { label: [`${LABELS.workspace}=${workspaceId}`] } });
    await Promise.all(left.map((c) => docker.getContainer(c.Id).remove({ force: true })));
    await docker.listContainers({ all: true, filters: { label: ['slipway-test-unmanaged'] } }).then((l) => Promise.all(l.map((c) => docker.getContainer(c.Id).remove({ force: true }))));
    await t.stop();
    await rm(caDir, { recursive: true, force: true });
  });

  function healthWith(credentials: grpc.ChannelCredentials): Promise<unknown> {
    const { Health } = loadHealthProto().grpc.health.v1;
    const client = new Health(t.target.grpcAddress, credentials, { 'grpc.ssl_target_name_override': 'agent-spec.agent.slipway' });
    return new Promise((resolve, reject) => {
      client.check({}, { deadline: Date.now() + 3_000 }, (err, res) => {
        client.close();
        if (err) reject(err);
        else resolve(res);
      });
    });
  }

  it('answers the standard health check to the control plane', async () => {
    await expect(conn.health()).resolves.toBeUndefined();
    await expect(healthWith(grpc.credentials.createSsl(Buffer.from(ca.client.caPem), Buffer.from(ca.client.keyPem), Buffer.from(ca.client.certPem)))).resolves.toEqual({ status: 'SERVING' });
  });

  it('refuses a client without a certificate', async () => {
    const err = (await healthWith(grpc.credentials.createSsl(Buffer.from(ca.client.caPem))).catch((e) => e)) as grpc.ServiceError;
    expect(err.code).toBe(grpc.status.UNAVAILABLE);
  });

  it('refuses a client whose certificate comes from another CA', async () => {
    const other = createCertificateAuthority('Someone else');
    const stranger = issueKeyAndCert(other, { commonName: 'slipway-control-plane', usage: 'client' });
    const err = (await healthWith(grpc.credentials.createSsl(Buffer.from(ca.client.caPem), Buffer.from(stranger.keyPem), Buffer.from(stranger.certPem))).catch((e) => e)) as grpc.ServiceError;
    expect(err.code).toBe(grpc.status.UNAVAILABLE);
  });

  it("refuses another agent's certificate (same CA, server usage only)", async () => {
    const agentKey = await readFile(path.join(t.dataDir, 'tls', 'agent.key'));
    const agentCert = await readFile(path.join(t.dataDir, 'tls', 'agent.crt'));
    const err = (await healthWith(grpc.credentials.createSsl(Buffer.from(ca.client.caPem), agentKey, agentCert)).catch((e) => e)) as grpc.ServiceError;
    expect([grpc.status.UNAVAILABLE, grpc.status.PERMISSION_DENIED]).toContain(err.code);
  });

  it("refuses a client certificate of the control plane's CA that is not the control plane's, on every service", async () => {
    const caKeys = { keyPem: await readFile(path.join(caDir, 'ca', 'ca.key'), 'utf8'), certPem: await readFile(path.join(caDir, 'ca', 'ca.crt'), 'utf8') };
    const other = issueKeyAndCert(caKeys, { commonName: 'not-the-control-plane', usage: 'client' });
    const credentials = grpc.credentials.createSsl(Buffer.from(ca.client.caPem), Buffer.from(other.keyPem), Buffer.from(other.certPem));
    const health = (await healthWith(credentials).catch((e) => e)) as grpc.ServiceError;
    expect(health.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(health.metadata.get('slipway-error-code')).toEqual(['forbidden']);
    const files = new (loadFilesProto().slipway.agent.v1.Files)(t.target.grpcAddress, credentials, { 'grpc.ssl_target_name_override': 'agent-spec.agent.slipway' });
    const listing = await new Promise<grpc.ServiceError | null>((resolve) => files.listFiles({ appId: randomUUID(), path: '' }, (err) => resolve(err)));
    files.close();
    expect(listing?.code).toBe(grpc.status.PERMISSION_DENIED);
  });

  it('refuses plaintext', async () => {
    const err = (await healthWith(grpc.credentials.createInsecure()).catch((e) => e)) as grpc.ServiceError;
    expect(err.code).toBe(grpc.status.UNAVAILABLE);
  });

  it('the control plane refuses an agent whose certificate is not from its CA', async () => {
    const { ca: otherCa, dir } = await openTestCa();
    const stranger = await startTestAgent(otherCa, { nodeName: 'agent-spec' });
    const c = new AgentConnection(stranger.target, ca.client);
    try {
      const err = await c.health().catch((e) => e);
      expect(err).toBeInstanceOf(AppError);
      expect(err.code).toBe('node_unavailable');
    } finally {
      c.close();
      await stranger.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('does a command once per operation id, also when calls overlap and across restarts', async () => {
    const id = randomUUID();
    const [a, b] = await Promise.all([conn.noop({ operationId: id, delayMs: 300 }), conn.noop({ operationId: id, delayMs: 300 })]);
    expect([a.replayed, b.replayed].sort()).toEqual([false, true]);
    expect(a.startedAtMs).toBe(b.startedAtMs);
    const again = await conn.noop({ operationId: id, delayMs: 0 });
    expect(again.replayed).toBe(true);
    expect(again.startedAtMs).toBe(a.startedAtMs);

    await t.restart();
    const afterRestart = await conn.noop({ operationId: id, delayMs: 0 });
    expect(afterRestart.replayed).toBe(true);
    const entry = await t.agent.journal.read(id);
    expect(entry).toMatchObject({ state: 'done', starts: 1, command: 'Noop' });
  });

  it('refuses an operation id reused for another command', async () => {
    const id = randomUUID();
    await conn.noop({ operationId: id, delayMs: 0 });
    const err = await conn.removeManagedContainers({ operationId: id, containerIds: [] }).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('validation_failed');
  });

  it('lists and removes only containers carrying slipway labels (real Docker)', async () => {
    await ensureTestImage(docker);
    const appId = randomUUID();
    const managed = await docker.createContainer({ Image: TEST_IMAGE, Labels: { [LABELS.workspace]: workspaceId, [LABELS.app]: appId } });
    const other = await docker.createContainer({ Image: TEST_IMAGE, Labels: { [LABELS.workspace]: workspaceId } });
    const unmanaged = await docker.createContainer({ Image: TEST_IMAGE, Labels: { 'slipway-test-unmanaged': '1' } });

    const byWorkspace = await conn.listManagedContainers({ workspaceId });
    expect(byWorkspace.map((c) => c.id).sort()).toEqual([managed.id, other.id].sort());
    const byApp = await conn.listManagedContainers({ appId });
    expect(byApp).toHaveLength(1);
    expect(byApp[0]).toMatchObject({ id: managed.id, image: TEST_IMAGE, state: 'created', labels: { [LABELS.app]: appId } });

    const opId = randomUUID();
    const removed = await conn.removeManagedContainers({ operationId: opId, containerIds: [managed.id, unmanaged.id, 'f'.repeat(64)] });
    expect(removed.removed).toEqual([managed.id]);
    expect(removed.skipped.sort()).toEqual([unmanaged.id, 'f'.repeat(64)].sort());
    expect((await unmanaged.inspect()).Id).toBe(unmanaged.id);
    const replay = await conn.removeManagedContainers({ operationId: opId, containerIds: [managed.id] });
    expect(replay.removed).toEqual([managed.id]);
    expect((await conn.listManagedContainers({ workspaceId })).map((c) => c.id)).toEqual([other.id]);
  });

  it('reports container exits on a stream, and streams container logs', async () => {
    await ensureTestImage(docker);
    const events: ContainerExitEvent[] = [];
    const sub = conn.watchContainerEvents((e) => events.push(e), () => undefined);
    await new Promise((r) => setTimeout(r, 300));
    const c = await docker.createContainer({
      Image: TEST_IMAGE,
      Cmd: ['/bin/busybox', 'sh', '-c', 'echo hello from slipway; exit 3'],
      Labels: { [LABELS.workspace]: workspaceId, [LABELS.app]: 'exit-test' },
    });
    await c.start();
    await waitFor(() => events.some((e) => e.containerId === c.id));
    sub.stop();
    const exit = events.find((e) => e.containerId === c.id)!;
    expect(exit).toMatchObject({ action: 'die', exitCode: 3, labels: { [LABELS.workspace]: workspaceId, [LABELS.app]: 'exit-test' } });

    const chunks: Buffer[] = [];
    const call = conn.agent.tailContainerLogs({ containerId: c.id, tail: 0, follow: false });
    await new Promise<void>((resolve, reject) => {
      call.on('data', (d: { stream: string; data: Buffer }) => chunks.push(d.data));
      call.on('end', resolve);
      call.on('error', reject);
    });
    expect(Buffer.concat(chunks).toString()).toBe('hello from slipway\n');
  });

  it('serves the wire contract from the one loader', () => {
    expect(Object.keys(loadAgentProto().slipway.agent.v1.Agent.service)).toEqual(
      expect.arrayContaining(['GetNodeInfo', 'Noop', 'ListManagedContainers', 'RemoveManagedContainers', 'WatchContainerEvents', 'TailContainerLogs']),
    );
    expect(Object.keys(loadAgentProto().slipway.agent.v1.Agent.service)).not.toContain('Upload');
  });
});

async function waitFor(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
