// The agent's gRPC server as the control plane meets it: mutual TLS, the one authorization interceptor, the journal.
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { AppError } from '@slipway/core';
import { CertificateAuthority, createCertificateAuthority, issueKeyAndCert } from '@slipway/pki';
import { AgentConnection, loadAgentProto, loadFilesProto, loadHealthProto } from '@slipway/proto';
import { openTestCa, startTestAgent, type TestAgent } from '@slipway/testing/agent';

jest.setTimeout(60_000);

describe('agent over gRPC with mutual TLS (real TLS on 127.0.0.1)', () => {
  let ca: CertificateAuthority;
  let caDir: string;
  let t: TestAgent;
  let conn: AgentConnection;

  beforeAll(async () => {
    ({ ca, dir: caDir } = await openTestCa());
    t = await startTestAgent(ca, { nodeName: 'agent-spec' });
    conn = new AgentConnection(t.target, ca.client);
  });

  afterAll(async () => {
    conn.close();
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

  it('serves the wire contract from the one loader', () => {
    expect(Object.keys(loadAgentProto().slipway.agent.v1.Agent.service)).toEqual(
      expect.arrayContaining(['GetNodeInfo', 'Noop', 'ListManagedContainers', 'RemoveManagedContainers', 'WatchContainerEvents', 'TailContainerLogs']),
    );
    expect(Object.keys(loadAgentProto().slipway.agent.v1.Agent.service)).not.toContain('Upload');
  });
});
