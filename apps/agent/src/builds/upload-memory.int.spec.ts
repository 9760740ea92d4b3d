// A 200 MB .zip upload through Builds.UploadZip must not be held in the agent's memory: the receiver reads one
// message at a time and writes it out. The agent runs in its own process (`slipway-agent run`), so its resident
// memory is measured alone, sampled every 10 ms while the upload runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CertificateAuthority } from '@slipway/pki';
import { AgentPool, BuildsPool } from '@slipway/proto';
import { freeHostPort } from '../containers/readiness';
import { enrollOffline, openTestCa } from '@slipway/testing/agent';
import { writeZip } from '@slipway/testing/zip';

jest.setTimeout(180_000);

const MB = 1024 * 1024;
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** The buffer in slices of 1 MB, as an HTTP body would arrive. */
async function* slices(buf: Buffer): AsyncGenerator<Uint8Array> {
  for (let off = 0; off < buf.length; off += MB) yield buf.subarray(off, off + MB);
}

describe('Builds.UploadZip memory (the agent in its own process)', () => {
  let ca: CertificateAuthority;
  let caDir: string;
  let dataDir: string;
  let agent: ChildProcess;
  let agents: AgentPool;
  let builds: BuildsPool;
  let target: { name: string; grpcAddress: string };

  beforeAll(async () => {
    ({ ca, dir: caDir } = await openTestCa());
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'slipway-upload-memory-'));
    await enrollOffline(ca, dataDir, 'upload-memory');
    const port = await freeHostPort();
    target = { name: 'upload-memory', grpcAddress: `127.0.0.1:${port}` };
    const root = path.resolve(__dirname, '../../../..');
    // The flags production runs the agent with (deploy/lib/supervise.sh, the systemd units): a 4 MB young generation.
    agent = spawn(process.execPath, ['--max-semi-space-size=4', '--import', 'tsx', path.join(root, 'apps/agent/src/main.ts'), 'run'], {
      cwd: root,
      env: {
        ...process.env,
        SLIPWAY_LOG_LEVEL: 'warn',
        SLIPWAY_AGENT_DATA_DIR: dataDir,
        SLIPWAY_AGENT_NODE_NAME: 'upload-memory',
        SLIPWAY_AGENT_LISTEN: target.grpcAddress,
        SLIPWAY_UPLOAD_ZIP_MAX_BYTES: String(256 * MB),
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    agents = new AgentPool(ca.client);
    builds = new BuildsPool(agents);
    for (let i = 0; ; i++) {
      if (await agents.health(target).then(() => true, () => false)) break;
      if (i > 300 || agent.exitCode !== null) throw new Error('the agent did not come up');
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  afterAll(async () => {
    agents?.close();
    if (agent && agent.exitCode === null) {
      agent.kill('SIGTERM');
      await new Promise((r) => agent.once('exit', r));
    }
    await rm(dataDir, { recursive: true, force: true });
    await rm(caDir, { recursive: true, force: true });
  });

  it('does not hold a 200 MB .zip in the agent (growth under half of it), and keeps every byte', async () => {
    // One stored entry of 200 MB: a real .zip that does not compress, so the wire carries all of it.
    const content = Buffer.alloc(200 * MB);
    for (let off = 0; off < content.length; off += 4) content.writeUInt32LE((off * 2654435761) >>> 0, off);
    const zip = writeZip([{ name: 'blob.bin', data: content, store: true }]);
    const sha256 = createHash('sha256').update(zip).digest('hex');

    // Warm up: the first upload loads the code paths and the TLS session; it is not what is measured.
    await builds.uploadZip(target, randomUUID(), slices(zip.subarray(0, 2 * MB)));

    const pid = agent.pid!;
    const before = rssMb(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 10);
    const deploymentId = randomUUID();
    try {
      expect(await builds.uploadZip(target, deploymentId, slices(zip))).toEqual({ size: zip.length, sha256 });
    } finally {
      clearInterval(sampler);
    }
    const growth = peak - before;
    console.log(`agent resident memory: ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB during a ${(zip.length / MB).toFixed(0)} MB upload (+${growth.toFixed(1)} MB)`);
    expect((await stat(path.join(dataDir, 'uploads', `${deploymentId}.zip`))).size).toBe(zip.length);
    // The property: the upload is streamed, never whole in memory (a buffered one grows the agent by its 200 MB). The
    // figure itself (+45 to +72 MB on Node 24 with production's flags, against the 64 MB target) is a benchmark's to
    // report (bench/files), not a pass/fail line here: it moves with the machine's load by ±10 MB.
    expect(growth).toBeLessThan(100);
  });
});
