// The web console's budgets (issue 28), in Debian's Chromium against the API serving the built console:
//  1. first-load JavaScript, compressed, of the sign-in page (what the browser received, and the files on disk);
//  2. the app page usable after navigation (click on an app in the list → its heading and controls on screen) in a
//     workspace of 100 apps, beside the API's own answer time for the same app (the floor);
//  3. a 100,000-line build log followed while it is written: how far the page falls behind the writer, beside a
//     follower in Node on the same API (the floor).
// npx tsx bench/console/run.ts [--apps 100] [--runs 10] [--lines 100000] [--rate 20000]
import { readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { ensureConsoleBuilt, launchChromium, openTab, visible } from '@slipway/testing/browser';
import { startTestApi } from '@slipway/testing/api';
import { createWorkspace, signUp } from '@slipway/testing';
import { Client } from 'pg';
import globalSetup from '../../testing/src/global-setup';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const APPS = arg('apps', 100);
const RUNS = arg('runs', 10);
const LINES = arg('lines', 100_000);
const RATE = arg('rate', 20_000);
const DIST = path.join(__dirname, '../../apps/console/dist');
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  ensureConsoleBuilt();
  await globalSetup();
  const api = await startTestApi({ publicOrigin: 'self' });
  const browser = await launchChromium();
  const results: string[] = [];
  try {
    // 1. First load. Files on disk: the entry script and what index.html preloads.
    const html = readFileSync(path.join(DIST, 'index.html'), 'utf8');
    const scripts = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
    const onDisk = (ext: string) => scripts.reduce((n, s) => n + statSync(path.join(DIST, `${s}${ext}`)).size, 0);
    const tab = await openTab(browser, api.base, 'bench');
    await tab.page.goto('/signin');
    await visible(tab.page.getByRole('button', { name: 'Sign in' }));
    // Bytes on the wire (encodedBodySize: compressed) of every script the page loaded.
    const received = await tab.page.evaluate<number>(
      "performance.getEntriesByType('resource').filter((r) => r.name.endsWith('.js')).reduce((n, r) => n + r.encodedBodySize, 0)",
    );
    results.push(`first-load JS: ${(received / 1024).toFixed(1)} KB received (brotli); on disk ${(onDisk('.br') / 1024).toFixed(1)} KB br, ${(onDisk('.gz') / 1024).toFixed(1)} KB gzip, ${(onDisk('') / 1024).toFixed(1)} KB raw — target ≤ 200 KB: ${received <= 200 * 1024 ? 'met' : 'NOT met'}`);

    // 2. A workspace of 100 apps (a plan and extra vCPU that hold them: an operator's doing).
    const client = api.client();
    const me = await signUp(client);
    const ws = await createWorkspace(client);
    const plan = await api.db.plan.findFirstOrThrow({ where: { slug: 'business' }, orderBy: { version: 'desc' } });
    await api.db.workspace.update({ where: { id: ws.id }, data: { planId: plan.id, billingStatus: 'active', extraCpuMillis: 100 * APPS } });
    const apps: { id: string; name: string }[] = [];
    for (let i = 0; i < APPS; i++) {
      const r = await client.post(`/v1/workspaces/${ws.id}/apps`, { name: `app ${String(i).padStart(3, '0')}`, kind: 'web', source: 'image', image: 'nginx:1', memoryMb: 128 });
      if (r.status !== 201) throw new Error(`app ${i}: ${r.status} ${r.text}`);
      apps.push(r.body);
    }
    await tab.page.getByLabel('Email').fill(me.email);
    await tab.page.getByLabel('Password').fill(me.password);
    await tab.page.getByRole('button', { name: 'Sign in' }).click();
    await tab.page.waitForURL(/\/apps$/);
    const usable: number[] = [];
    const floor: number[] = [];
    for (let run = 0; run < RUNS + 1; run++) {
      const app = apps[(run * 37) % apps.length]!;
      await tab.page.goto(`/w/${ws.id}/apps`);
      await visible(tab.page.getByRole('link', { name: app.name, exact: true }));
      // Timed in the page, from the click to the frame where the app's heading and its Restart button are both there
      // (Playwright's own waiting polls with back-off, which would round the figure up).
      const ms = await tab.page.evaluate<number>(
        `((name) => new Promise((resolve) => {
          const link = [...document.querySelectorAll('a')].find((a) => a.textContent === name);
          const t0 = performance.now();
          link.click();
          const check = () => {
            const heading = [...document.querySelectorAll('h1')].some((h) => h.textContent === name);
            const button = [...document.querySelectorAll('button')].some((b) => b.textContent === 'Restart');
            if (heading && button) resolve(performance.now() - t0);
            else requestAnimationFrame(check);
          };
          check();
        }))(${JSON.stringify(app.name)})`,
      );
      // The floor: the same app read by the page with fetch, nothing rendered.
      const api = await tab.page.evaluate<number>(
        `(async (url) => { const t0 = performance.now(); await (await fetch(url)).json(); return performance.now() - t0; })(${JSON.stringify(`/v1/workspaces/${ws.id}/apps/${app.id}`)})`,
      );
      // Run 0 warms the app page's chunk.
      if (run > 0) {
        usable.push(ms);
        floor.push(api);
      }
    }
    results.push(
      `app page usable after navigation (${APPS} apps, n=${RUNS}): p50 ${pct(usable, 0.5).toFixed(0)} ms, p95 ${pct(usable, 0.95).toFixed(0)} ms, max ${Math.max(...usable).toFixed(0)} ms; ` +
        `the page's fetch of the app alone p50 ${pct(floor, 0.5).toFixed(1)} ms — target ≤ 1000 ms: ${Math.max(...usable) <= 1000 ? 'met' : 'NOT met'}`,
    );

    // 3. A build log of LINES lines written at RATE lines/s (in batches of 1,000, as a builder flushes), followed by
    //    the page and by a follower in Node. Lag of a batch: when the follower had it − when it was written.
    const app = apps[0]!;
    const dep = await client.post(`/v1/workspaces/${ws.id}/apps/${app.id}/deployments`, {});
    if (dep.status !== 201) throw new Error(`deployment: ${dep.status} ${dep.text}`);
    await api.db.deployment.update({ where: { id: dep.body.id }, data: { status: 'building', startedAt: new Date() } });
    await tab.page.goto(`/w/${ws.id}/apps/${app.id}/deployments/${dep.body.id}`);
    const log = tab.page.getByRole('log', { name: 'Build and deploy log' });
    await visible(log);
    // The page notes (Date.now(), this machine's clock) every change of its line count.
    await tab.page.evaluate(`(() => {
      const el = document.querySelector('[role=log]');
      window.__seen = [];
      new MutationObserver(() => window.__seen.push({ count: Number(el.dataset.lines), at: Date.now() })).observe(el, { attributes: true, attributeFilter: ['data-lines'] });
    })()`);
    const written: { count: number; at: number }[] = [];
    const nodeSeen: { count: number; at: number }[] = [];
    const watchNode = (async () => {
      let after = 0;
      while (after < LINES) {
        const r = await client.get(`/v1/workspaces/${ws.id}/apps/${app.id}/deployments/${dep.body.id}/logs?after=${after}&limit=5000&wait=20`);
        after = r.body.nextAfter;
        nodeSeen.push({ count: after, at: Date.now() });
      }
    })();
    const colours = ['\x1b[32m', '\x1b[33m', '\x1b[36m', '\x1b[1;31m', ''];
    const pg = new Client({ connectionString: api.database.url });
    await pg.connect();
    const started = Date.now();
    for (let seq = 1; seq <= LINES; seq += 1000) {
      const seqs = Array.from({ length: Math.min(1000, LINES - seq + 1) }, (_, k) => seq + k);
      const texts = seqs.map((n) => `${colours[n % colours.length]}step ${n}: compiling module ${n % 977} of the app\x1b[0m`);
      // As the builder writes them: one multi-row insert per batch.
      await pg.query(
        `INSERT INTO deployment_log_lines (deployment_id, seq, phase, text, at) SELECT $1::uuid, s, 'build', t, now() FROM unnest($2::int[], $3::text[]) AS x(s, t)`,
        [dep.body.id, seqs, texts],
      );
      written.push({ count: seqs.at(-1)!, at: Date.now() });
      const due = started + ((seq + 999) / RATE) * 1000;
      await sleep(Math.max(0, due - Date.now()));
    }
    const writeSeconds = (Date.now() - started) / 1000;
    await pg.end();
    await watchNode;
    await visible(tab.page.locator(`[role=log][data-lines="${LINES}"]`), 60_000);
    const pageSeen = await tab.page.evaluate<{ count: number; at: number }[]>('window.__seen');
    await api.db.deployment.update({ where: { id: dep.body.id }, data: { status: 'failed', finishedAt: new Date(), failureReason: 'benchmark' } });
    const lagOf = (obs: { count: number; at: number }[]) => written.map((w) => (obs.find((o) => o.count >= w.count)?.at ?? Infinity) - w.at);
    const pageLag = lagOf(pageSeen);
    const nodeLag = lagOf(nodeSeen);
    results.push(
      `build log followed, ${LINES} lines written in ${writeSeconds.toFixed(1)} s: page behind by p50 ${pct(pageLag, 0.5).toFixed(0)} ms, p95 ${pct(pageLag, 0.95).toFixed(0)} ms, max ${Math.max(...pageLag).toFixed(0)} ms; ` +
        `Node follower p50 ${pct(nodeLag, 0.5).toFixed(0)} ms, max ${Math.max(...nodeLag).toFixed(0)} ms — target ≤ 1000 ms: ${Math.max(...pageLag) <= 1000 ? 'met' : 'NOT met'}`,
    );
    await tab.close();
  } finally {
    await browser.close();
    await api.close();
  }
  process.stdout.write(`${results.join('\n')}\nload average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')} (2 cores)\n`);
}

void main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
