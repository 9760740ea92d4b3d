// Project-files benchmark: upload and download of a 100 MB file through the real path (HTTP → API → gRPC with
// mutual TLS → agent → disk), the growth of the API's and the agent's resident memory meanwhile, and the latency
// of listing a folder of 1,000 files.
//   npx tsx bench/files/run.ts [--rounds 3] [--mb 100] [--lists 200]
// Self-contained: a scratch database, its own Redis prefix, a CA in a temporary folder, and the API and the agent
// each in its own process (as in production), so each one's memory is its own. Everything is removed at the end.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { enrollOffline, openTestCa } from '@slipway/testing/agent';
import { dropRedisPrefix, insertNode } from '@slipway/testing/worker';
import { createDb, migrate } from '../../packages/db/src';
import { AgentPool } from '../../packages/proto/src';
import { adminQuery, ApiClient, createWorkspace, databaseUrl, signUp, TEST_SERVICES } from '../../testing/src';
import { verdict } from '../lib/verdict';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, mb: { type: 'string', default: '100' }, lists: { type: 'string', default: '200' } } });
const ROUNDS = Number(values.rounds);
const BYTES = Number(values.mb) * 1_000_000;
const LISTS = Number(values.lists);
const MB = 1_000_000;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** Samples both processes' resident memory every 10 ms while `work` runs: the peak above the level before. */
async function measured<T>(pids: { api: number; agent: number }, work: () => Promise<T>) {
  const before = { api: rssMb(pids.api), agent: rssMb(pids.agent) };
  const peak = { ...before };
  const timer = setInterval(() => {
    peak.api = Math.max(peak.api, rssMb(pids.api));
    peak.agent = Math.max(peak.agent, rssMb(pids.agent));
  }, 10);
  const t0 = performance.now();
  try {
    const result = await work();
    const seconds = (performance.now() - t0) / 1000;
    return { result, seconds, growth: { api: peak.api - before.api, agent: peak.agent - before.agent }, before };
  } finally {
    clearInterval(timer);
  }
}

function spawnTs(root: string, entry: string, args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(root, entry), ...args], {
    cwd: root,
    env: { ...process.env, SLIPWAY_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

async function until(what: string, probe: () => Promise<boolean>) {
  for (let i = 0; i < 300; i++) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not come up`);
}

async function main() {
  const root = path.resolve(__dirname, '../..');
  const dbName = `slipway_bench_${randomBytes(4).toString('hex')}`;
  const prefix = `slipway-bench-${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${dbName}`);
  const url = databaseUrl(dbName);
  const { ca, dir: caDir } = await openTestCa();
  const agentDir = await mkdtemp(path.join(os.tmpdir(), 'slipway-bench-agent-'));
  await enrollOffline(ca, agentDir, 'bench-files');
  const agentPort = await freePort();
  const apiPort = await freePort();
  const base = `http://127.0.0.1:${apiPort}`;
  const children: ChildProcess[] = [];
  const db = createDb(url);
  try {
    await migrate(url);
    const agent = spawnTs(root, 'apps/agent/src/main.ts', ['run'], {
      SLIPWAY_AGENT_DATA_DIR: agentDir,
      SLIPWAY_AGENT_NODE_NAME: 'bench-files',
      SLIPWAY_AGENT_LISTEN: `127.0.0.1:${agentPort}`,
    });
    children.push(agent);
    const target = { name: 'bench-files', grpcAddress: `127.0.0.1:${agentPort}` };
    const probe = new AgentPool(ca.client);
    await until('the agent', () => probe.health(target).then(() => true));
    probe.close();
    await insertNode(db, { target, dataDir: agentDir });
    const api = spawnTs(root, 'apps/api/src/main.ts', [], {
      DATABASE_URL: url,
      REDIS_URL: TEST_SERVICES.redisUrl,
      SLIPWAY_REDIS_PREFIX: prefix,
      SLIPWAY_API_PORT: String(apiPort),
      SLIPWAY_PUBLIC_URL: base,
      SLIPWAY_DATA_DIR: caDir,
    });
    children.push(api);
    await until('the API', async () => (await fetch(`${base}/healthz`)).ok);

    const client = new ApiClient(base);
    await signUp(client);
    const ws = await createWorkspace(client);
    const created = await client.post(`/v1/workspaces/${ws.id}/apps`, { name: 'bench', kind: 'web', source: 'image', image: 'bench/none:1', memoryMb: 128 });
    if (created.status !== 201) throw new Error(`app creation answered ${created.status}: ${created.text}`);
    const appId = created.body.id as string;
    const filesUrl = (q: string) => `${base}/v1/workspaces/${ws.id}/apps/${appId}/files${q}`;
    const headers = { cookie: `svc_session=${client.cookie('svc_session')}`, origin: base };
    const pids = { api: api.pid!, agent: agent.pid! };

    const chunk = randomBytes(MB);
    const upload = () =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(filesUrl('/content?path=bench/big.bin'), {
          method: 'PUT',
          headers: { ...headers, 'content-type': 'application/octet-stream', 'content-length': String(BYTES) },
        });
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve(BYTES) : reject(new Error(`upload answered ${res.statusCode}`))));
        });
        req.on('error', reject);
        let sent = 0;
        const pump = () => {
          while (sent < BYTES) {
            const n = Math.min(MB, BYTES - sent);
            sent += n;
            if (!req.write(n === MB ? chunk : chunk.subarray(0, n))) return void req.once('drain', pump);
          }
          req.end();
        };
        pump();
      });
    const download = () =>
      new Promise<number>((resolve, reject) => {
        http
          .get(filesUrl('/content?path=bench/big.bin'), { headers }, (res) => {
            if (res.statusCode !== 200) return reject(new Error(`download answered ${res.statusCode}`));
            let got = 0;
            res.on('data', (d: Buffer) => (got += d.length));
            res.on('end', () => (got === BYTES && Number(res.headers['content-length']) === BYTES ? resolve(got) : reject(new Error(`download got ${got} bytes`))));
          })
          .on('error', reject);
      });

    console.log(`files benchmark: HTTP → API → gRPC (mutual TLS) → agent → disk, ${BYTES / MB} MB, on ${os.availableParallelism()} cores; API and agent in their own processes`);
    const rows: string[] = [];
    const up: number[] = [];
    const down: number[] = [];
    const growth = { api: 0, agent: 0 };
    for (let round = 0; round <= ROUNDS; round++) {
      const u = await measured(pids, upload);
      const d = await measured(pids, download);
      const label = round === 0 ? 'cold (first transfer)' : `round ${round}`;
      rows.push(
        `  ${label.padEnd(22)} upload ${(BYTES / MB / u.seconds).toFixed(0).padStart(4)} MB/s (API +${u.growth.api.toFixed(1)} MB, agent +${u.growth.agent.toFixed(1)} MB)` +
          `   download ${(BYTES / MB / d.seconds).toFixed(0).padStart(4)} MB/s (API +${d.growth.api.toFixed(1)} MB, agent +${d.growth.agent.toFixed(1)} MB)`,
      );
      up.push(BYTES / MB / u.seconds);
      down.push(BYTES / MB / d.seconds);
      growth.api = Math.max(growth.api, u.growth.api, d.growth.api);
      growth.agent = Math.max(growth.agent, u.growth.agent, d.growth.agent);
    }
    console.log(rows.join('\n'));
    console.log(`  resident memory after: API ${rssMb(pids.api).toFixed(0)} MB, agent ${rssMb(pids.agent).toFixed(0)} MB`);

    // A folder of 1,000 files, made on disk as the app would.
    const folder = path.join(agentDir, 'volumes', appId, 'many');
    await mkdir(folder, { recursive: true });
    await Promise.all(Array.from({ length: 1000 }, (_, i) => writeFile(path.join(folder, `file-${String(i).padStart(4, '0')}.txt`), `content ${i}\n`)));
    const list = async () => {
      const t0 = performance.now();
      const res = await fetch(filesUrl('?path=many'), { headers });
      const body = (await res.json()) as { entries: unknown[] };
      if (res.status !== 200 || body.entries.length !== 1000) throw new Error(`listing answered ${res.status}`);
      return performance.now() - t0;
    };
    for (let i = 0; i < 20; i++) await list();
    const times: number[] = [];
    for (let i = 0; i < LISTS; i++) times.push(await list());
    times.sort((a, b) => a - b);
    console.log(`  listing of 1,000 files (${LISTS} requests, one at a time): p50 ${percentile(times, 50).toFixed(1)} ms  p90 ${percentile(times, 90).toFixed(1)} ms  p99 ${percentile(times, 99).toFixed(1)} ms`);

    const warmUp = up.slice(1).sort((a, b) => a - b);
    const warmDown = down.slice(1).sort((a, b) => a - b);
    // Failed transfers and listings throw above, so every figure here comes from successful requests.
    const met = (ok: boolean) => verdict(ok, 0);
    console.log(`targets: upload ≥ 150 MB/s (median of rounds ${percentile(warmUp, 50).toFixed(0)}): ${met(percentile(warmUp, 50) >= 150)}; ` +
      `download ≥ 150 MB/s (${percentile(warmDown, 50).toFixed(0)}): ${met(percentile(warmDown, 50) >= 150)}; ` +
      `memory growth ≤ 64 MB (API ${growth.api.toFixed(0)}, agent ${growth.agent.toFixed(0)}): ${met(growth.api <= 64 && growth.agent <= 64)}; ` +
      `listing p50 ≤ 30 ms: ${met(percentile(times, 50) <= 30)}`);
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
    await db.$disconnect();
    await dropRedisPrefix(TEST_SERVICES.redisUrl, prefix);
    await rm(agentDir, { recursive: true, force: true });
    await rm(caDir, { recursive: true, force: true });
    await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
