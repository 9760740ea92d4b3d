// Teardown benchmark (issue 34, item 3): a workspace of N apps deleted through the API, timed from the DELETE until no
// container, network, project folder mount, image tag or route of it is left; once with SLIPWAY_REMOVAL_CONCURRENCY=1
// (the serial order of before) and once with the bound (default 8), each on a fresh platform in the same run.
// Usage: npx tsx bench/teardown/run.ts [--apps 16] [--bound 8] [--workspaces 1] [--deploy-concurrency 4] [--serial 1]
// (--serial 0 skips the serial run). See bench/teardown/README.md.
import os from 'node:os';
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
const WORKSPACES = Math.max(1, Math.min(arg('workspaces', 1), arg('apps', 16)));
const SERIAL = arg('serial', 1) !== 0;
const POLL_MS = 250;
const KINDS = ['containers', 'networks', 'mounts', 'images', 'routes'] as const;
type Kind = (typeof KINDS)[number];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `work` over `items`, `limit` at a time. */
async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

/** What the workspaces still hold on the server, by kind (containers, networks, mounts, image tags, routes), summed. */
async function held(p: TestPlatform, workspaces: { id: string; appIds: string[] }[]): Promise<Record<Kind, number>> {
  const each = await Promise.all(workspaces.map((w) => workspaceLeftovers(p, w.id, w.appIds)));
  return Object.fromEntries(KINDS.map((k) => [k, each.reduce((n, e) => n + e[k], 0)])) as Record<Kind, number>;
}
const total = (h: Record<Kind, number>) => KINDS.reduce((n, k) => n + h[k], 0);

interface Run {
  bound: number;
  live: number;
  ms: number;
  left: number;
  /** When each kind of object was gone (ms after the DELETEs), or null if it never was. */
  goneAt: Record<Kind, number | null>;
  teardown: string;
  failed: number;
  load: string;
}

async function once(bound: number): Promise<Run> {
  const p = await startTestPlatform({ name: `bench-teardown-${bound}`, removalConcurrency: bound, readyTimeoutMs: 60_000, stopGraceMs: 2_000 });
  try {
    const client = p.client();
    await signUp(client);
    await p.db.plan.updateMany({ data: { cpuMillis: 1_000_000, memoryMb: 1_048_576, diskMb: 16_777_216 } });
    const workspaces: { id: string; appIds: string[] }[] = [];
    for (let w = 0; w < WORKSPACES; w++) workspaces.push({ id: (await createWorkspace(client, `Teardown ${w}`)).id, appIds: [] });
    let failed = 0;
    await pool(
      Array.from({ length: APPS }, (_, i) => i),
      DEPLOY_CONCURRENCY,
      async (i) => {
        const ws = workspaces[i % WORKSPACES]!;
        const apps = `/v1/workspaces/${ws.id}/apps`;
        const created = await client.post(apps, { name: `app ${i}`, kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128, cpuMillis: 100 });
        if (created.status !== 201) throw new Error(`creating app ${i} answered ${created.status}: ${JSON.stringify(created.body)}`);
        ws.appIds.push(created.body.id);
        if ((await client.post(`${apps}/${created.body.id}/deployments`, {})).status !== 201) failed++;
      },
    );
    const deadline = Date.now() + 15 * 60_000;
    let live = 0;
    while (Date.now() < deadline) {
      const lists = await Promise.all(workspaces.map(async (w) => (await client.get(`/v1/workspaces/${w.id}/apps`)).body.data as { status: string }[]));
      live = lists.flat().filter((a) => a.status === 'running').length;
      if (live === APPS || lists.flat().some((a) => a.status === 'failed')) break;
      await sleep(1_000);
    }
    const before = await held(p, workspaces);
    console.log(`bound ${bound}: ${live}/${APPS} apps running in ${WORKSPACES} workspace(s), held: ${JSON.stringify(before)}`);
    const load = os.loadavg().map((l) => l.toFixed(1)).join(' ');
    const started = Date.now();
    const deleted = await Promise.all(workspaces.map((w) => client.delete(`/v1/workspaces/${w.id}`)));
    failed += deleted.filter((r) => r.status !== 200).length;
    const goneAt = Object.fromEntries(KINDS.map((k) => [k, before[k] === 0 ? 0 : null])) as Record<Kind, number | null>;
    let left = total(before);
    while (Date.now() - started < 10 * 60_000) {
      const now = await held(p, workspaces);
      for (const k of KINDS) if (now[k] === 0 && goneAt[k] === null) goneAt[k] = Date.now() - started;
      left = total(now);
      if (left === 0) break;
      await sleep(POLL_MS);
    }
    const ms = Date.now() - started;
    const ops = await p.db.operation.findMany({ where: { workspaceId: { in: workspaces.map((w) => w.id) }, kind: 'workspace.teardown' } });
    const spans = ops.map((op) => (op.finishedAt ? op.finishedAt.getTime() - op.createdAt.getTime() : NaN));
    const teardown = ops.length
      ? `${ops.filter((o) => o.status === 'succeeded').length}/${ops.length} succeeded, tries ${Math.max(...ops.map((o) => o.attempts))} at most, queued → done ${Math.max(...spans)} ms at most${ops.some((o) => o.error) ? `, error: ${ops.find((o) => o.error)!.error}` : ''}`
      : 'no operation';
    if (live !== APPS) failed += APPS - live;
    return { bound, live, ms, left, goneAt, teardown, failed, load };
  } finally {
    await p.close();
  }
}

async function main() {
  await globalSetup();
  console.log(`teardown of ${APPS} apps (busybox web apps) in ${WORKSPACES} workspace(s), all deleted at once: ${SERIAL ? 'serial, then ' : ''}bound ${BOUND}\n`);
  const runs = [...(SERIAL ? [await once(1)] : []), await once(BOUND)];
  const parallel = runs[runs.length - 1]!;
  console.log('');
  for (const r of runs) {
    const gone = KINDS.map((k) => `${k} ${r.goneAt[k] === null ? 'never' : `${(r.goneAt[k]! / 1000).toFixed(1)} s`}`).join(', ');
    console.log(`SLIPWAY_REMOVAL_CONCURRENCY=${String(r.bound).padEnd(3)} DELETE → nothing left: ${(r.ms / 1000).toFixed(2)} s (${(r.ms / APPS).toFixed(0)} ms per app; left ${r.left}; ${r.live}/${APPS} were running; load average ${r.load})`);
    console.log(`  gone after: ${gone} (polled every ${POLL_MS} ms); teardown ${r.teardown}`);
  }
  const failed = runs.reduce((n, r) => n + r.failed + r.left, 0);
  if (SERIAL) console.log(`\nspeed-up: ${(runs[0]!.ms / parallel.ms).toFixed(2)}× (${(runs[0]!.ms / APPS).toFixed(0)} → ${(parallel.ms / APPS).toFixed(0)} ms per app)`);
  // Issue 34's target is 1,000 apps in ≤ 60 s: 60 ms per app, checked here per app of this smaller run.
  console.log(`target (≤ 60 ms per app, i.e. 1,000 apps ≤ 60 s): ${verdict(parallel.ms / APPS <= 60, failed)}`);
  exitOnFailures(failed);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
