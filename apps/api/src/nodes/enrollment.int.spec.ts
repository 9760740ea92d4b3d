import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLogger } from '@slipway/config';
import { createEnrollmentToken, EnrollmentService, NodeService, type Logger } from '@slipway/core';
import { createAgentRepositories } from '@slipway/db';
import { CertificateAuthority, createKeyAndCsr } from '@slipway/pki';
import { AgentPool } from '@slipway/proto';
import { TEST_SERVICES } from '@slipway/testing';
import { createApp } from '../app';
import { startTestApi, type TestApi } from '@slipway/testing/api';
import { agentsCheck } from './agents.readiness';
import { certificateAuthorityOf } from './certificate-authority';

jest.setTimeout(180_000);

const exec = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../../..');
const AGENT_BIN = path.join(ROOT, 'apps/agent/bin/slipway-agent');
const ADMIN_BIN = path.join(ROOT, 'apps/cli/bin/slipway-admin');
const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };

/** Asks the agent at `target` for its health every 200 ms until it answers; its last error after `ms`. */
async function answersHealth(pool: AgentPool, target: { name: string; grpcAddress: string }, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await pool.health(target);
      return;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

async function sh(bin: string, args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await exec(bin, args, { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('enrollment: slipway-agent join against the real API, then run, health and slipway-admin nodes', () => {
  let api: TestApi;
  let caDir: string;
  let agentDir: string;
  let port: number;
  let agentEnv: Record<string, string>;
  let adminEnv: Record<string, string>;
  let agentProcess: ChildProcess | null = null;
  let pool: AgentPool;

  beforeAll(async () => {
    api = await startTestApi();
    caDir = await mkdtemp(path.join(os.tmpdir(), 'slipway-cp-'));
    agentDir = await mkdtemp(path.join(os.tmpdir(), 'slipway-agent-'));
    // The control plane's CA lives under this test's data dir (main.ts passes config.controlPlane.dataDir).
    const repos = createAgentRepositories(api.db);
    api.services.enrollment = new EnrollmentService({ tokens: repos.enrollmentTokens, nodes: repos.nodes, ca: certificateAuthorityOf(caDir) });
    port = await freePort();
    agentEnv = {
      SLIPWAY_LOG_LEVEL: 'silent',
      SLIPWAY_AGENT_DATA_DIR: agentDir,
      SLIPWAY_AGENT_NODE_NAME: 'joined-node',
      SLIPWAY_AGENT_LISTEN: `127.0.0.1:${port}`,
      DOCKER_SOCKET: TEST_SERVICES.dockerSocket,
    };
    adminEnv = { DATABASE_URL: api.database.url, REDIS_URL: TEST_SERVICES.redisUrl, SLIPWAY_REDIS_PREFIX: api.redisPrefix };
  });

  afterAll(async () => {
    agentProcess?.kill('SIGKILL');
    pool?.close();
    await api?.close();
    await rm(caDir, { recursive: true, force: true });
    await rm(agentDir, { recursive: true, force: true });
  });

  it('joins with a token from slipway-admin, keeping its key on the server', async () => {
    const made = await sh(ADMIN_BIN, ['enroll-token', 'create', '--json'], adminEnv);
    expect(made.code).toBe(0);
    const { token } = JSON.parse(made.stdout) as { token: string };

    const joined = await sh(AGENT_BIN, ['join', '--url', api.base, '--token', token], agentEnv);
    expect(joined).toMatchObject({ code: 0, stdout: expect.stringMatching(/^joined as node [0-9a-f-]{36}\n$/) });

    for (const f of ['agent.key', 'agent.crt', 'ca.crt', 'node.json']) {
      expect(((await stat(path.join(agentDir, 'tls', f))).mode & 0o777).toString(8)).toBe('600');
    }
    expect(((await stat(path.join(caDir, 'ca', 'ca.key'))).mode & 0o777).toString(8)).toBe('600');
    const cert = new X509Certificate(await readFile(path.join(agentDir, 'tls', 'agent.crt')));
    const caCert = new X509Certificate(await readFile(path.join(caDir, 'ca', 'ca.crt')));
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.subjectAltName).toContain('DNS:joined-node.agent.slipway');
    expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(cert.checkPrivateKey((await import('node:crypto')).createPrivateKey(await readFile(path.join(agentDir, 'tls', 'agent.key'))))).toBe(true);

    const node = await api.db.node.findUniqueOrThrow({ where: { name: 'joined-node' } });
    expect(node).toMatchObject({ grpcAddress: `127.0.0.1:${port}`, status: 'offline', publicIpv4: ['127.0.0.1'], version: '0.1.0' });
    expect(node.cpuMillis).toBe(os.availableParallelism() * 1000);
    expect(node.certFingerprint).toBe(cert.fingerprint256.replace(/:/g, '').toLowerCase());
    expect(await api.db.enrollmentToken.findFirstOrThrow()).toMatchObject({ nodeId: node.id, usedAt: expect.any(Date) });

    // Joining again with the enrollment on disk changes nothing.
    expect(await sh(AGENT_BIN, ['join', '--url', api.base, '--token', token], agentEnv)).toMatchObject({ code: 0, stdout: `already enrolled as node ${node.id}\n` });

    // The token was used once: another server cannot join with it.
    const other = await mkdtemp(path.join(os.tmpdir(), 'slipway-agent-'));
    try {
      const again = await sh(AGENT_BIN, ['join', '--url', api.base, '--token', token], { ...agentEnv, SLIPWAY_AGENT_DATA_DIR: other, SLIPWAY_AGENT_NODE_NAME: 'second' });
      expect(again.code).toBe(3);
      expect(again.stderr).toMatch(/Enrollment refused \(401 unauthorized\)/);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('refuses an expired token, a bad CSR and unknown fields', async () => {
    const repos = createAgentRepositories(api.db);
    const { token } = await createEnrollmentToken(repos.enrollmentTokens, 1000);
    await new Promise((r) => setTimeout(r, 1100));
    const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-agent-'));
    try {
      const expired = await sh(AGENT_BIN, ['join', '--url', api.base, '--token', token], { ...agentEnv, SLIPWAY_AGENT_DATA_DIR: dir, SLIPWAY_AGENT_NODE_NAME: 'late' });
      expect(expired.code).toBe(3);
      expect(expired.stderr).toMatch(/401 unauthorized/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }

    const fresh = await createEnrollmentToken(repos.enrollmentTokens, 60_000);
    const body = { token: fresh.token, csr: createKeyAndCsr('x').csrPem, name: 'n2', grpcAddress: '127.0.0.1:1', publicIpv4: [], cpuMillis: 1000, memoryMb: 512, version: 't' };
    const post = (b: unknown) => fetch(`${api.base}/v1/agent/enroll`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
    const badCsr = await post({ ...body, csr: `${'-----BEGIN CERTIFICATE REQUEST-----\n'}${'A'.repeat(200)}\n-----END CERTIFICATE REQUEST-----\n` });
    expect(badCsr.status).toBe(400);
    expect(((await badCsr.json()) as { error: { code: string } }).error.code).toBe('validation_failed');
    const extra = await post({ ...body, admin: true });
    expect(extra.status).toBe(400);
    const noToken = await post({ ...body, token: 'swe_wrongwrongwrong' });
    expect(noToken.status).toBe(401);
    // Refused requests did not use the token up.
    expect((await post(body)).status).toBe(201);
  });

  it('shows online in slipway-admin nodes once the running agent answers its health check, and readiness follows', async () => {
    const ca = await CertificateAuthority.open(caDir);
    pool = new AgentPool(ca.client);
    const repos = createAgentRepositories(api.db);
    const nodes = new NodeService({ nodes: repos.nodes, agents: pool, logger: quiet, offlineAfterMs: 60_000 });
    const check = agentsCheck({ nodes: repos.nodes, agents: pool });
    // startTestApi's own node (online, nothing listens behind it) and ours (offline): no agent answers yet.
    await expect(check.check()).rejects.toThrow(/no agent answered/);

    agentProcess = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/agent/src/main.ts'), 'run'], {
      cwd: ROOT,
      env: { ...process.env, ...agentEnv },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const target = { name: 'joined-node', grpcAddress: `127.0.0.1:${port}` };
    await answersHealth(pool, target, 30_000);
    const report = await nodes.checkHealth();
    expect(report.changed).toContainEqual({ name: 'joined-node', from: 'offline', to: 'online' });

    const listed = await sh(ADMIN_BIN, ['nodes', '--json'], adminEnv);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toContainEqual(expect.objectContaining({ name: 'joined-node', status: 'online', grpcAddress: `127.0.0.1:${port}`, lastSeenAt: expect.any(String) }));
    expect((await sh(ADMIN_BIN, ['nodes'], adminEnv)).stdout).toMatch(/joined-node\s+online\s+127\.0\.0\.1:\d+/);

    await expect(check.check()).resolves.toBeUndefined();
    const app = createApp({ logger: createLogger('test', 'silent'), readiness: [check], v1: [] });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      // The boot id says which process answered (issue 27: setup and restart check it is the one they started).
      expect(await ready.json()).toEqual({ ok: true, bootId: expect.any(String), checks: [{ name: 'agents', ok: true }] });

      agentProcess.kill('SIGTERM');
      await new Promise((r) => agentProcess!.once('exit', r));
      const down = await fetch(`${base}/readyz`);
      expect(down.status).toBe(503);
      expect(((await down.json()) as { checks: { name: string; ok: boolean }[] }).checks).toEqual([expect.objectContaining({ name: 'agents', ok: false })]);
    } finally {
      server.close();
    }
  });
});
