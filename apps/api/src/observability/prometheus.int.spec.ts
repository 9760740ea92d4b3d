// Prometheus text for the operator (issue 15): the API as main.ts composes it with a token, and the separate
// listener, over a real PostgreSQL (nodes) and Redis (queue depths). Closed without a token; never a 5xx.
import type { AddressInfo } from 'node:net';
import { createLogger } from '@slipway/config';
import { createDb, type Db } from '@slipway/db';
import { BullJobQueue, createRedisConnection } from '@slipway/queue';
import { createTestDatabase, insertNode, TEST_SERVICES, type TestDatabase } from '@slipway/testing';
import { dropRedisPrefix, uniquePrefix } from '@slipway/testing/worker';
import express from 'express';
import type Redis from 'ioredis';
import { createApp } from '../app';
import { metricsEndpoint, serveMetrics } from './metrics.endpoint';
import { LatencyHistogram } from './prometheus';
import { metricsSources } from './sources';

const TOKEN = 'a-long-enough-metrics-token';

describe('GET /metrics (Prometheus text)', () => {
  let database: TestDatabase;
  let db: Db;
  let redis: Redis;
  let jobs: BullJobQueue;
  const prefix = uniquePrefix('prometheus');
  const servers: { close(): void }[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url);
    redis = createRedisConnection(TEST_SERVICES.redisUrl);
    jobs = new BullJobQueue({ connection: redis, prefix });
  });

  afterAll(async () => {
    for (const s of servers) s.close();
    await jobs.close();
    redis.disconnect();
    await db.$disconnect();
    await database.drop();
    await dropRedisPrefix(TEST_SERVICES.redisUrl, prefix);
  });

  async function serve(token: string): Promise<{ base: string; http: LatencyHistogram }> {
    const http = new LatencyHistogram();
    const sources = metricsSources({ http, jobs, nodes: { list: async () => (await db.node.findMany()).map((n) => ({ ...n, status: n.status as 'online', disk: null, databaseEngines: null })) } });
    const v1 = express.Router();
    v1.get('/things/:id', (_req, res) => void res.json({ ok: true }));
    const app = createApp({ logger: createLogger('prometheus-test', 'silent'), readiness: [], v1: [v1], observability: { http, metrics: token ? metricsEndpoint({ token, sources }) : undefined } });
    const server = app.listen(0, '127.0.0.1');
    servers.push(server);
    await new Promise((r) => server.once('listening', r));
    return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, http };
  }

  it('serves the process, latency histogram, queue depths, job outcomes and agent reachability behind the bearer token', async () => {
    const { base } = await serve(TOKEN);
    const up = await insertNode(db, { name: 'node-up', status: 'online' });
    await insertNode(db, { name: 'node-down', status: 'offline' });
    await jobs.enqueue('node.check-health', {}, { jobId: `probe-${up.id}` });
    for (let i = 0; i < 3; i++) expect((await fetch(`${base}/v1/things/${i}`)).status).toBe(200);

    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    expect((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total [\d.e-]+$/m);
    // Route templates, not raw paths: three requests, one series.
    expect(text).toContain('slipway_http_request_duration_seconds_count{method="GET",route="/v1/things/:id",status="2xx"} 3');
    expect(text).toContain('slipway_http_request_duration_seconds_bucket{method="GET",route="/v1/things/:id",status="2xx",le="+Inf"} 3');
    expect(text).toContain('slipway_queue_jobs{queue="maintenance",state="waiting"} 1');
    expect(text).toMatch(/^slipway_job_outcomes\{queue="agent",outcome="failed"\} 0$/m);
    expect(text).toContain('slipway_agent_up{node="node-up"} 1');
    expect(text).toContain('slipway_agent_up{node="node-down"} 0');
    expect(text).not.toMatch(/slipway_scrape_error\{/);
    // Every line is a comment or `name{labels} value`.
    for (const line of text.trim().split('\n')) expect(line).toMatch(/^(# (HELP|TYPE) .+|[a-z_:][a-z0-9_:]*(\{[^}]*\})? -?[\d.e+-]+|[a-z_:][a-z0-9_:]*(\{[^}]*\})? NaN)$/i);
  });

  it('answers 404 at /metrics when no token is set (never public by accident)', async () => {
    const { base } = await serve('');
    const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(404);
  });

  it('serves the same text on a listener of its own', async () => {
    const http = new LatencyHistogram();
    const listener = await serveMetrics('127.0.0.1:0', metricsSources({ http, jobs, nodes: { list: async () => [] } }));
    servers.push({ close: () => void listener.close() });
    const res = await fetch(`http://127.0.0.1:${listener.port}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('# TYPE slipway_queue_jobs gauge');
    expect((await fetch(`http://127.0.0.1:${listener.port}/other`)).status).toBe(404);
  });
});
