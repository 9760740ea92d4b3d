// Teardown benchmark (issue 34, item 3): a workspace of N apps deleted through the API, timed from the DELETE until no
// container, network, project folder mount, image tag or route of it is left; once with SLIPWAY_REMOVAL_CONCURRENCY=1
// (the serial order of before) and once with the bound (default 8), each on a fresh platform in the same run.
// Usage: npx tsx bench/teardown/run.ts [--apps 16] [--bound 8] [--deploy-concurrency 4]. See bench/teardown/README.md.
import { createWorkspace, signUp } from '@slipway/testing';
import { startTestPlatform, workspaceLeftovers, type TestPlatform } from '@slipway/testing/platform';
import globalSetup from '../../testing/src/global-setup';
import { exitOnFailures, verdict } from '../lib/verdict';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const APPS = arg('apps', 16);
const BOUND = arg('bound', 8);
const DEPLOY_CONCURRENCY = arg('deploy-concurrency', 4);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `work` over `items`, `limit` at a time. */
async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

/** Everything the workspace still holds on the server (containers, networks, mounts, image tags, routes), summed. */
const held = async (p: TestPlatform, workspaceId: string, appIds: string[]) => Object.values(await workspaceLeftovers(p, workspaceId, appIds)).reduce((a, b) => a + b, 0);

interface Run {
  bound: number;
  live: number;
  ms: number;
  left: number;
  teardown: string;
  failed: number;
}

async function once(bound: number): Promise<Run> {
  const p = await startTestPlatform({ name: `bench-teardown-${bound}`, removalConcurrency: bound, readyTimeoutMs: 60_000, stopGraceMs: 2_000 });
  try {
    const client = p.client();
    await signUp(client);
    await p.db.plan.updateMany({ data: { cpuMillis: 1_000_000, memoryMb: 1_048_576, diskMb: 16_777_216 } });
    const ws = await createWorkspace(client);
    const apps = `/v1/workspaces/${ws.id}/apps`;
    const appIds: string[] = [];
    let failed = 0;
    await pool(
      Array.from({ length: APPS }, (_, i) => i),
      DEPLOY_CONCURRENCY,
      async (i) => {
        const created = await client.post(apps, { name: `app ${i}`, kind: 'web', source: 'image', image: p.images.v1, memoryMb: 64, cpuMillis: 100 });
        if (created.status !== 201) return void failed++;
        appIds.push(created.body.id);
        if ((await client.post(`${apps}/${created.body.id}/deployments`, {})).status !== 201) failed++;
      },
    );
    const deadline = Date.now() + 15 * 60_000;
    let live = 0;
    while (Date.now() < deadline) {
      const list = (await client.get(apps)).body.data as { status: string }[];
      live = list.filter((a) => a.status === 'running').length;
      if (live === appIds.length || list.some((a) => a.status === 'failed')) break;
      await sleep(1_000);
    }
    const before = await held(p, ws.id, appIds);
    console.log(`bound ${bound}: ${live}/${APPS} apps running, ${before} objects held (containers, network, mounts, image tags, routes)`);
    const started = Date.now();
    if ((await client.delete(`/v1/workspaces/${ws.id}`)).status !== 200) failed++;
    let left = before;
    while (Date.now() - started < 10 * 60_000) {
      left = await held(p, ws.id, appIds);
      if (left === 0) break;
      await sleep(100);
    }
    const ms = Date.now() - started;
    const op = await p.db.operation.findFirst({ where: { workspaceId: ws.id, kind: 'workspace.teardown' } });
    const teardown = op ? `${op.status}, ${op.attempts} tries, queued → done ${op.finishedAt ? op.finishedAt.getTime() - op.createdAt.getTime() : '?'} ms${op.error ? `, error: ${op.error}` : ''}` : 'no operation';
    if (live !== APPS) failed += APPS - live;
    return { bound, live, ms, left, teardown, failed };
  } finally {
    await p.close();
  }
}

async function main() {
  await globalSetup();
  console.log(`teardown of one workspace of ${APPS} apps (busybox web apps), serial then bound ${BOUND}\n`);
  const serial = await once(1);
  const parallel = await once(BOUND);
  console.log('');
  for (const r of [serial, parallel]) {
    console.log(`SLIPWAY_REMOVAL_CONCURRENCY=${String(r.bound).padEnd(3)} DELETE → nothing left: ${(r.ms / 1000).toFixed(2)} s (left ${r.left}; ${r.live}/${APPS} were running; teardown ${r.teardown})`);
  }
  const failed = serial.failed + parallel.failed + serial.left + parallel.left;
  console.log(`\nspeed-up: ${(serial.ms / parallel.ms).toFixed(2)}× (${(serial.ms / APPS).toFixed(0)} → ${(parallel.ms / APPS).toFixed(0)} ms per app)`);
  // Issue 34's target is 1,000 apps in ≤ 60 s: 60 ms per app, checked here per app of this smaller run.
  console.log(`target (≤ 60 ms per app, i.e. 1,000 apps ≤ 60 s): ${verdict(parallel.ms / APPS <= 60, failed)}`);
  exitOnFailures(failed);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
