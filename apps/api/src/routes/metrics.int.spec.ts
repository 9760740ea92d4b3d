// Per-app metrics end to end (issue 15): a real app on the real agent uses CPU, memory, network and its project
// folder; the agent samples the kernel's counters (every second here), closes minutes on disk, the metrics.collect
// job pulls them into PostgreSQL and GET …/metrics answers the series. The agent is restarted in the middle of a
// minute: that minute keeps what was counted before the restart, and no minute is missing.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor } from '@slipway/testing/worker';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';

jest.setTimeout(240_000);

const CPU_LIMIT = 500;
const BURN_MS = 30_000;
const SENT_BYTES = 5_000_000;
const FILE_BYTES = 20 * 1024 * 1024;

type Point = { at: string; value: number | null };
type MetricsBody = { range: string; stepSeconds: number; from: string; to: string; series: Record<string, Point[]> };
/** A point's value, a step without samples counting as 0. */
const valueOf = (x: Point) => x.value ?? 0;
/** The sum of a series, and the highest memory of a body. */
const total = (m: MetricsBody, name: string) => m.series[name]!.reduce((a, x) => a + valueOf(x), 0);
const highest = (m: MetricsBody) => Math.max(...m.series.memoryMb!.map(valueOf));

const minuteOf = (ms: number) => Math.floor(ms / 60_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('GET …/apps/{appId}/metrics (real Docker, agent, PostgreSQL)', () => {
  let p: TestPlatform;
  let owner: ApiClient;
  let ws: { id: string };
  let app: { id: string; url: string };
  let stranger: ApiClient;
  let strangerWs: { id: string };
  const marks = { firstMinute: 0, restartMinute: 0, burnStart: 0, burnEnd: 0, burnCoreSeconds: 0 };

  /** CPU time the app's container got, read by the test itself from the kernel (cgroup v1 or v2). */
  async function cpuSecondsOfApp(): Promise<number> {
    const [c] = await p.docker.listContainers({ filters: { label: [`slipway.app=${app.id}`], status: ['running'] } });
    const v1 = await readFile(`/sys/fs/cgroup/cpuacct/docker/${c!.Id}/cpuacct.usage`, 'utf8').catch(() => null);
    if (v1 !== null) return Number(v1) / 1e9;
    const v2 = await readFile(`/sys/fs/cgroup/system.slice/docker-${c!.Id}.scope/cpu.stat`, 'utf8').catch(() => readFile(`/sys/fs/cgroup/docker/${c!.Id}/cpu.stat`, 'utf8'));
    return Number(/usage_usec (\d+)/.exec(v2)![1]) / 1e6;
  }

  const metricsPath = (range?: string, workspaceId = ws.id, appId = app.id) => `/v1/workspaces/${workspaceId}/apps/${appId}/metrics${range ? `?range=${range}` : ''}`;
  const series = async (range = '1h') => {
    const res = await owner.get(metricsPath(range));
    expect(res.status).toBe(200);
    return res.body as MetricsBody;
  };
  /** The value of a series at a minute (1h range: one point per minute). */
  const at = (m: MetricsBody, name: string, minute: number) => m.series[name]!.find((x) => Date.parse(x.at) === minute * 60_000)?.value ?? null;

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'metrics', metrics: { intervalMs: 1_000, folderIntervalMs: 2_000 } });
    owner = p.client();
    await signUp(owner);
    ws = await createWorkspace(owner);
    stranger = p.client();
    await signUp(stranger);
    strangerWs = await createWorkspace(stranger);

    const res = await owner.post(`/v1/workspaces/${ws.id}/apps`, {
      name: `load ${randomBytes(3).toString('hex')}`,
      kind: 'web',
      source: 'image',
      image: p.images.load,
      cpuMillis: CPU_LIMIT,
      memoryMb: 256,
    });
    expect(res.status).toBe(201);
    app = res.body;
    expect((await owner.post(`/v1/workspaces/${ws.id}/apps/${app.id}/deployments`, {})).status).toBe(201);
    await waitFor(async () => (await p.viaIngress(app.url).catch(() => null))?.body === 'load\n', 90_000, 'the load app to answer');
    marks.firstMinute = minuteOf(Date.now()) + 1;

    // The project folder: 20 MB through the files API.
    const put = await owner.request('PUT', `/v1/workspaces/${ws.id}/apps/${app.id}/files/content?path=big.bin`, {
      raw: randomBytes(FILE_BYTES),
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(put.status).toBe(200);
    // 100 MB more held by the app.
    expect((await p.viaIngress(app.url, '/alloc?mb=100')).status).toBe(200);

    // Network bytes and an agent restart in one minute: what was counted before the restart must stay in it.
    // Not in the container's first minute (sampled only from when it started, so its average covers less than a
    // minute), and early enough in a minute for the transfers and the restart to share it.
    if (minuteOf(Date.now()) < marks.firstMinute || Date.now() % 60_000 > 40_000) await sleep(60_000 - (Date.now() % 60_000) + 500);
    for (let i = 0; i < 2; i++) expect((await p.viaIngress(app.url, `/bytes?n=${SENT_BYTES}`)).body.length).toBe(SENT_BYTES);
    await p.agent.agent.metrics.sampleNow();
    marks.restartMinute = minuteOf(Date.now());
    await p.agent.restart();

    // One core's worth of work for 30 s, against a limit of half a core.
    const cpuBefore = await cpuSecondsOfApp();
    expect((await p.viaIngress(app.url, `/burn?ms=${BURN_MS}`)).status).toBe(200);
    // The burn started before its answer came back: it is over 30 s (and a margin) after that.
    marks.burnStart = Date.now();
    marks.burnEnd = marks.burnStart + BURN_MS;
    // Collected while the burn runs (a pull in the middle of things), then once every minute of it has closed.
    await sleep(5_000);
    await p.worker.services.metrics.collectAll();
    await sleep(Math.max(0, marks.burnEnd + 2_000 - Date.now()));
    marks.burnCoreSeconds = (await cpuSecondsOfApp()) - cpuBefore;
    const closed = (minuteOf(marks.burnEnd) + 1) * 60_000 + 2_500;
    await sleep(Math.max(0, closed - Date.now()));
    await waitFor(async () => (await p.worker.services.metrics.collectAll()).nodes === 1, 20_000, 'a collection that reaches the agent');
  });

  afterAll(async () => {
    await p?.close();
  });

  it('shows the CPU burn at its limit: the minutes of a 30 s burn hold the CPU time the container got, near limit × 30 s', async () => {
    const m = await series('1h');
    const minutes = [...new Set([minuteOf(marks.burnStart), minuteOf(marks.burnEnd)])];
    const values = minutes.map((x) => Number(at(m, 'cpuMillis', x)));
    // Millicores averaged over each minute × 60 s = CPU time (a 30 s burn at 500 m reads 250 m over a whole minute).
    const coreSeconds = values.reduce((a, v) => a + (v * 60) / 1000, 0);
    console.log(`cpuMillis of the burn's minutes: ${values.join(', ')} = ${coreSeconds} core-seconds; the kernel says ${marks.burnCoreSeconds.toFixed(2)}`);
    // What the series holds is what the kernel counted for the container (the app's idle minutes around it add little)…
    expect(coreSeconds).toBeGreaterThan(marks.burnCoreSeconds * 0.85);
    expect(coreSeconds).toBeLessThan(marks.burnCoreSeconds * 1.15 + 1);
    // …which is its limit for 30 s: the cgroup throttles one busy core to 500 m (less when the host is loaded).
    expect(marks.burnCoreSeconds).toBeGreaterThan((CPU_LIMIT / 1000) * (BURN_MS / 1000) * 0.6);
    expect(marks.burnCoreSeconds).toBeLessThan((CPU_LIMIT / 1000) * (BURN_MS / 1000) * 1.1);
    expect(Math.max(...m.series.cpuMillis!.map(valueOf))).toBeLessThanOrEqual(CPU_LIMIT * 1.1);
  });

  it('shows the 100 MB the app holds in memoryMb', async () => {
    const m = await series('1h');
    const mem = at(m, 'memoryMb', marks.restartMinute);
    expect(mem).toBeGreaterThanOrEqual(100);
    expect(mem).toBeLessThan(256);
  });

  it('shows the bytes sent in networkTxBytes, in the minute they were sent even though the agent restarted in it', async () => {
    const m = await series('1h');
    expect(at(m, 'networkTxBytes', marks.restartMinute)).toBeGreaterThanOrEqual(2 * SENT_BYTES);
    expect(at(m, 'networkRxBytes', marks.restartMinute)).toBeGreaterThan(0);
  });

  it('shows the 20 MB file in folderMb', async () => {
    const m = await series('1h');
    const folder = m.series.folderMb!.filter((x) => x.value !== null).map((x) => x.value!);
    expect(Math.max(...folder)).toBeGreaterThanOrEqual(20);
    expect(Math.max(...folder)).toBeLessThan(40);
  });

  it('loses no minute across the agent restart: every minute from the first to the last closed one has a point', async () => {
    const m = await series('1h');
    const last = minuteOf(marks.burnEnd);
    for (let minute = marks.firstMinute; minute <= last; minute++) {
      expect({ minute, memoryMb: at(m, 'memoryMb', minute) }).toEqual({ minute, memoryMb: expect.any(Number) });
    }
  });

  it('stores nothing twice: the same minutes pulled again add no row', async () => {
    const rows = async () => Number((await p.db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM metric_minutes`)[0]!.n);
    const before = await rows();
    expect(before).toBeGreaterThan(0);
    // Back to the start: the agent still has the minutes of the last pull (acknowledged only by a later cursor).
    await p.db.$executeRaw`UPDATE node_metrics SET minute = 0`;
    const halfHourMinutes = async () => Number((await p.db.$queryRaw<{ n: bigint }[]>`SELECT coalesce(sum(minutes), 0) AS n FROM metric_half_hours`)[0]!.n);
    expect(await halfHourMinutes()).toBe(before);
    const again = await p.worker.services.metrics.collectAll();
    expect(again).toMatchObject({ nodes: 1, rows: 0 });
    expect(await rows()).toBe(before);
    // The half hours (what 7d and 30d read) did not count any minute twice either.
    expect(await halfHourMinutes()).toBe(before);
  });

  it('prunes minutes older than 31 days and keeps the rest', async () => {
    const QUERIES = {
      old: () => p.db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM metric_minutes WHERE at < now() - interval '31 days'`,
      recent: () => p.db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM metric_minutes WHERE at >= now() - interval '31 days'`,
    };
    const count = async (where: 'old' | 'recent') => Number((await QUERIES[where]())[0]!.n);
    const recent = await count('recent');
    await p.db.$executeRaw`INSERT INTO metric_minutes (target_id, at, kind, workspace_id, node_id, cpu_millis, memory_mb, network_rx_bytes,
      network_tx_bytes, disk_read_bytes, disk_write_bytes, folder_mb)
      SELECT ${app.id}::uuid, now() - make_interval(days => d), 'app', ${ws.id}::uuid, gen_random_uuid(), 1, 1, 0, 0, 0, 0, NULL
      FROM generate_series(32, 40) d`;
    expect(await count('old')).toBe(9);
    expect(await p.worker.services.metrics.prune()).toBe(9);
    expect(await count('old')).toBe(0);
    expect(await count('recent')).toBe(recent);
  });

  it('answers every range with its number of aligned points, nulls where nothing was sampled', async () => {
    for (const [range, step, points] of [
      ['1h', 60, 60],
      ['24h', 300, 288],
      ['7d', 1800, 336],
      ['30d', 7200, 360],
    ] as const) {
      const m = await series(range);
      expect({ range: m.range, stepSeconds: m.stepSeconds }).toEqual({ range, stepSeconds: step });
      for (const name of ['cpuMillis', 'memoryMb', 'networkRxBytes', 'networkTxBytes', 'diskReadBytes', 'diskWriteBytes', 'folderMb']) {
        expect(m.series[name]).toHaveLength(points);
      }
      expect(Date.parse(m.from) % (step * 1000)).toBe(0);
      expect(Date.parse(m.to) - Date.parse(m.from)).toBe(points * step * 1000);
      // The app ran only in the last few minutes: the oldest step is empty, a recent one is not.
      expect(m.series.memoryMb![0]!.value).toBeNull();
      expect(m.series.memoryMb!.some((x) => x.value !== null)).toBe(true);
    }
    // The long ranges read the half-hour roll-up: the same bytes and the same highest memory as the minutes.
    const [hour, week, month] = [await series('1h'), await series('7d'), await series('30d')];
    expect(total(week, 'networkTxBytes')).toBe(total(hour, 'networkTxBytes'));
    expect(total(month, 'networkTxBytes')).toBe(total(hour, 'networkTxBytes'));
    expect(highest(month)).toBe(highest(hour));
    // The default range is 1h.
    expect((await owner.get(metricsPath())).body.range).toBe('1h');
  });

  it('refuses a range other than the four with 400 validation_failed', async () => {
    for (const range of ['2h', '1H', '', '30d ', '1h,24h']) {
      const res = await owner.get(`${metricsPath()}?range=${encodeURIComponent(range)}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
  });

  it("answers 404 for another workspace's app, whichever workspace the path names", async () => {
    const mine = await stranger.get(metricsPath('1h', strangerWs.id, app.id));
    expect(mine.status).toBe(404);
    expect(mine.body.error.code).toBe('not_found');
    // Not a member of the owner's workspace: its apps are as if missing.
    expect((await stranger.get(metricsPath('1h', ws.id, app.id))).status).toBe(404);
  });
});
