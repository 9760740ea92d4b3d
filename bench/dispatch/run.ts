// Dispatch benchmark: N no-op operations through the real path (PostgreSQL row → BullMQ job → worker →
// agent over gRPC with mutual TLS) and the latency from enqueue to the agent starting the work.
//   npx tsx bench/dispatch/run.ts [--ops 1000] [--concurrency 2] [--warmup 50]
// Self-contained: a scratch database, its own Redis prefix, a CA in a temporary folder, an agent on
// 127.0.0.1 (its own process, as on a server) and the workers in this process. Two phases over the same
// path: `latency` keeps a few operations in flight (what one request sees), `burst` enqueues them all at
// once (how many per second the path carries). Everything it makes is removed at the end.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { enrollOffline, openTestCa } from '@slipway/testing/agent';
import { startWorkerRuntime } from '../../apps/worker/src/runtime';
import { dropRedisPrefix, insertNode, testConfig, testEnv } from '@slipway/testing/worker';
import { NOOP_JOB, type Logger } from '../../packages/core/src';
import { createDb, migrate } from '../../packages/db/src';
import { AgentPool } from '../../packages/proto/src';
import { adminQuery, databaseUrl, TEST_SERVICES } from '../../testing/src';
import { exitOnFailures, verdict } from '../lib/verdict';

const { values } = parseArgs({ options: { ops: { type: 'string', default: '1000' }, concurrency: { type: 'string', default: '2' }, warmup: { type: 'string', default: '50' } } });
const OPS = Number(values.ops);
const CONCURRENCY = Number(values.concurrency);
const WARMUP = Number(values.warmup);

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };
const now = () => performance.timeOrigin + performance.now();

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function main() {
  const dbName = `slipway_bench_${randomBytes(4).toString('hex')}`;
  const prefix = `slipway-bench-${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${dbName}`);
  const url = databaseUrl(dbName);
  const { ca, dir: caDir } = await openTestCa();
  const agentDir = await mkdtemp(path.join(os.tmpdir(), 'slipway-bench-agent-'));
  await enrollOffline(ca, agentDir, 'bench-node');
  const port = await freePort();
  const root = path.resolve(__dirname, '../..');
  const agentProcess = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/agent/src/main.ts'), 'run'], {
    cwd: root,
    env: { ...process.env, SLIPWAY_LOG_LEVEL: 'warn', SLIPWAY_AGENT_DATA_DIR: agentDir, SLIPWAY_AGENT_NODE_NAME: 'bench-node', SLIPWAY_AGENT_LISTEN: `127.0.0.1:${port}` },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const agent = { target: { name: 'bench-node', grpcAddress: `127.0.0.1:${port}` }, dataDir: agentDir };
  const probe = new AgentPool(ca.client);
  for (let tries = 0; ; tries++) {
    try {
      await probe.health(agent.target);
      break;
    } catch (e) {
      if (tries > 150) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  probe.close();
  const db = createDb(url);
  let runtime: Awaited<ReturnType<typeof startWorkerRuntime>> | null = null;
  try {
    await migrate(url);
    const node = await insertNode(db, agent);
    const env = testEnv({ databaseUrl: url, redisUrl: TEST_SERVICES.redisUrl, prefix, dataDir: caDir, extra: { SLIPWAY_WORKER_CONCURRENCY: '32', SLIPWAY_WORKER_LOCK_MS: '30000' } });
    runtime = await startWorkerRuntime(testConfig(env), quiet, { events: false, schedule: false });
    // The workers run in this process: their own events say when a job is done.
    const finished = new Map<string, () => void>();
    const submitted = new Map<string, number>();
    const pickedUp = new Map<string, number>();
    const ended = new Set<string>();
    const end = (id: string | undefined) => {
      if (!id) return;
      ended.add(id);
      finished.get(id)?.();
    };
    for (const w of runtime.pool.workers) {
      w.on('active', (job) => pickedUp.set(job.id!, now()));
      w.on('completed', (job) => end(job.id));
      w.on('failed', (job, err) => {
        console.error(`job ${job?.id} failed: ${err.message}`);
        end(job?.id);
      });
    }

    const ops = runtime.services.operations;
    const one = async () => {
      const t0 = now();
      let release!: () => void;
      const done = new Promise<void>((r) => (release = r));
      const op = await ops.submit(NOOP_JOB, { nodeId: node.id });
      submitted.set(op.id, now() - t0);
      finished.set(op.id, release);
      if (!ended.has(op.id)) await done; // it may have finished before submit returned
      finished.delete(op.id);
      ended.delete(op.id);
      return { id: op.id, t0, t1: now() };
    };
    const runBatch = async (count: number) => {
      const results: { id: string; t0: number; t1: number }[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < count) {
            next += 1;
            results.push(await one());
          }
        }),
      );
      return results;
    };

    const report = async (phase: string, results: { id: string; t0: number; t1: number }[], elapsed: number) => {
      const rows = await db.operation.findMany({ where: { id: { in: results.map((r) => r.id) } }, select: { id: true, status: true, result: true } });
      const byId = new Map(rows.map((r) => [r.id, r]));
      const toStart: number[] = [];
      const toDone: number[] = [];
      let failures = 0;
      for (const r of results) {
        const row = byId.get(r.id);
        const agentStart = (row?.result as { startedAtMs?: number } | null)?.startedAtMs;
        if (row?.status !== 'succeeded' || !agentStart) {
          failures += 1;
          continue;
        }
        toStart.push(agentStart - r.t0);
        toDone.push(r.t1 - r.t0);
      }
      toStart.sort((a, b) => a - b);
      toDone.sort((a, b) => a - b);
      const sub = results.map((r) => submitted.get(r.id) ?? 0).sort((a, b) => a - b);
      const wait = results.map((r) => (pickedUp.get(r.id) ?? 0) - r.t0 - (submitted.get(r.id) ?? 0)).sort((a, b) => a - b);
      const call = results
        .map((r) => ((byId.get(r.id)?.result as { startedAtMs?: number } | null)?.startedAtMs ?? 0) - (pickedUp.get(r.id) ?? 0))
        .sort((a, b) => a - b);
      const ms = (x: number) => `${x.toFixed(2)} ms`;
      console.log(`${phase}`);
      console.log(`  enqueue → agent starts work: p50 ${ms(percentile(toStart, 50))}  p90 ${ms(percentile(toStart, 90))}  p99 ${ms(percentile(toStart, 99))}  max ${ms(toStart.at(-1)!)}`);
      console.log(`  of which (p50): row + job added ${ms(percentile(sub, 50))}, queue → worker ${ms(percentile(wait, 50))}, worker → agent start ${ms(percentile(call, 50))}`);
      console.log(`  enqueue → job completed:     p50 ${ms(percentile(toDone, 50))}  p99 ${ms(percentile(toDone, 99))}`);
      console.log(`  ${(results.length / elapsed).toFixed(0)} operations/s (${results.length} in ${elapsed.toFixed(2)} s), failed: ${failures}`);
      return { p50: percentile(toStart, 50), failures };
    };

    await runBatch(WARMUP);
    console.log(`dispatch benchmark: row → BullMQ job → worker → agent (gRPC, mutual TLS) on ${os.availableParallelism()} cores`);
    let started = now();
    const paced = await runBatch(OPS);
    const latency = await report(`latency: ${OPS} no-op operations, ${CONCURRENCY} in flight`, paced, (now() - started) / 1000);

    started = now();
    const burst = await Promise.all(Array.from({ length: OPS }, () => one()));
    const throughput = await report(`burst: ${OPS} no-op operations enqueued at once`, burst, (now() - started) / 1000);

    const failed = latency.failures + throughput.failures;
    console.log(`target p50 < 10 ms (latency phase): ${verdict(latency.p50 < 10, failed)}`);
    exitOnFailures(failed);
  } finally {
    await runtime?.close();
    await dropRedisPrefix(TEST_SERVICES.redisUrl, prefix);
    await db.$disconnect();
    agentProcess.kill('SIGTERM');
    await rm(agentDir, { recursive: true, force: true });
    await rm(caDir, { recursive: true, force: true });
    await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
