// Test and benchmark helpers: an enrolled agent on 127.0.0.1 without the HTTP enrollment, and a tiny
// image to run containers from (no registry is reachable: it is built FROM scratch with busybox).
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AgentTarget, Logger } from '@slipway/core';
import { agentTlsName, CertificateAuthority, createKeyAndCsr } from '@slipway/pki';
import Docker from 'dockerode';
import { startTestHaproxy, TEST_INGRESS_HAPROXY, type TestHaproxy } from './haproxy';
import { silentLogger } from './logger';
import { TEST_SERVICES } from './services';
import { saveEnrollment, startAgent, type AgentOptions, type BuildSettings, type MetricsSettings, type NetworkSettings, type RunningAgent } from '@slipway/agent';

export interface TestAgent {
  agent: RunningAgent;
  target: AgentTarget;
  dataDir: string;
  /** With HAProxy in front (the default; SLIPWAY_TEST_INGRESS=caddy or the `haproxy: false` option: none): the agent's own HAProxy (decision 0040). */
  haproxy: TestHaproxy | null;
  /** Where requests to this agent's apps go: its HAProxy's port, else the machine's Caddy ingress. */
  ingressPort: number;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Enrolls a fresh data dir with the CA directly (what `join` does over HTTP) and starts an agent on it. */
export async function enrollOffline(ca: CertificateAuthority, dataDir: string, nodeName: string, nodeId = nodeName): Promise<void> {
  const { keyPem, csrPem } = createKeyAndCsr(agentTlsName(nodeName));
  const issued = ca.signAgentCsr(csrPem, nodeName, ['127.0.0.1']);
  await saveEnrollment(dataDir, { nodeId, nodeName, controlPlaneUrl: 'http://127.0.0.1', keyPem, certPem: issued.certPem, caPem: ca.certPem });
}

export async function startTestAgent(
  ca: CertificateAuthority,
  options: {
    nodeName?: string;
    nodeId?: string;
    dataDir?: string;
    port?: number;
    dockerSocket?: string;
    build?: Partial<BuildSettings>;
    /** Default: derived from the CA, which is the test's own, so parallel runs never share an identity. */
    platformId?: string;
    networks?: NetworkSettings;
    logger?: Logger;
    /** Custom domains: resolvers, ACME issuer, HTTPS port (default: the agent's defaults). */
    domains?: AgentOptions['domains'];
    /** Metrics sampling (default: the agent's, 10 s and 5 min); tests sample faster. */
    metrics?: Partial<MetricsSettings>;
    /** Managed databases' images (default: the agent's, i.e. the official images). */
    databaseImages?: AgentOptions['databaseImages'];
    /** Removals at once when workspaces or apps are deleted (default: the agent's, 8; 1: serial). */
    removalConcurrency?: number;
    /** HAProxy in front of the machine's Caddy with the app routes in its map (default: true unless SLIPWAY_TEST_INGRESS=caddy). */
    haproxy?: boolean;
  } = {},
): Promise<TestAgent> {
  const nodeName = options.nodeName ?? 'test-node';
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'slipway-agent-')));
  if (!options.dataDir) await enrollOffline(ca, dataDir, nodeName, options.nodeId);
  const haproxy = (options.haproxy ?? TEST_INGRESS_HAPROXY) ? await startTestHaproxy() : null;
  const start = (port: number) =>
    startAgent({
      listen: `127.0.0.1:${port}`,
      advertiseAddress: `127.0.0.1:${port}`,
      dataDir,
      nodeName,
      publicIpv4: ['127.0.0.1'],
      dockerSocket: options.dockerSocket ?? '/var/run/docker.sock',
      maxUploadBytes: 10 * 1024 * 1024,
      logger: options.logger ?? silentLogger,
      // Test runs share one engine: none writes the engine-wide BuildKit bound unless its test asks (build-cgroup.ts).
      build: { buildKitCgroup: null, ...options.build },
      platformId: options.platformId,
      networks: options.networks,
      domains: options.domains,
      metrics: options.metrics,
      databaseImages: options.databaseImages,
      removalConcurrency: options.removalConcurrency,
      ...(haproxy ? { haproxyDir: haproxy.dir } : {}),
    });
  const t: TestAgent = {
    agent: await start(options.port ?? 0),
    target: { name: nodeName, grpcAddress: '' },
    dataDir,
    haproxy,
    ingressPort: haproxy?.port ?? TEST_SERVICES.ingressPort,
    restart: async () => {
      await t.agent.close(1_000);
      t.agent = await start(t.agent.port);
    },
    stop: async () => {
      await t.agent.close(1_000);
      // The project folders are loop mounts: unmounted (their containers keep what they hold) before the removal.
      await t.agent.storage.teardown();
      await haproxy?.stop();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
  t.target.grpcAddress = `127.0.0.1:${t.agent.port}`;
  return t;
}

export const TEST_IMAGE = 'slipway-test/busybox:1';

/** A 1 MB image: busybox from the host (Debian's busybox-static) in an empty filesystem. */
export async function ensureTestImage(docker: Docker): Promise<string> {
  const images = await docker.listImages({ filters: { reference: [TEST_IMAGE] } });
  if (images.length > 0) return TEST_IMAGE;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-image-'));
  try {
    await copyFile('/bin/busybox', path.join(dir, 'busybox')).catch(() => {
      throw new Error('/bin/busybox is missing: apt-get install busybox-static');
    });
    await writeFile(path.join(dir, 'Dockerfile'), 'FROM scratch\nCOPY busybox /bin/busybox\nCMD ["/bin/busybox", "true"]\n');
    const stream = await docker.buildImage({ context: dir, src: ['Dockerfile', 'busybox'] }, { t: TEST_IMAGE });
    await new Promise<void>((resolve, reject) =>
      docker.modem.followProgress(stream, (err: Error | null, out: { error?: string }[]) => {
        const failed = out?.find((o) => o.error);
        if (err || failed) reject(err ?? new Error(failed!.error));
        else resolve();
      }),
    );
    return TEST_IMAGE;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function openTestCa(): Promise<{ ca: CertificateAuthority; dir: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-ca-'));
  return { ca: await CertificateAuthority.open(dir), dir };
}
