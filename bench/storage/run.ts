// Project-folder density: N folders made with the agent's storage layer (LoopExt4Storage) on this server's kernel,
// then what they cost: time to make one (first and last 10 %), kernel memory and threads, disk really taken, an agent
// start after a reboot (nothing mounted: issue 34's "2,000 project folders serve every app's files within 60 s, mount
// what runs first"), and the time to remove them.
//   npx tsx bench/storage/run.ts [--folders 2000] [--mb 512] [--concurrency 8] [--running 500] [--make-concurrency 1]
// Needs root. Everything is unmounted and removed at the end.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { parseArgs } from 'node:util';
import { ProjectFiles } from '../../apps/agent/src/files/files.service';
import { LoopExt4Storage } from '../../apps/agent/src/storage/loop-ext4.storage';
import { run } from '../../apps/agent/src/storage/run';
import { silentLogger } from '@slipway/testing/logger';

const { values } = parseArgs({
  options: {
    folders: { type: 'string', default: '2000' },
    mb: { type: 'string', default: '512' },
    concurrency: { type: 'string', default: '8' },
    running: { type: 'string', default: '500' },
    'make-concurrency': { type: 'string', default: '1' },
    /** A data directory of an earlier run stopped half-way: its folders (those with their file) are timed at start, then removed. */
    reuse: { type: 'string' },
  },
});
const N = Number(values.folders);
const LIMIT_MB = Number(values.mb);
const RUNNING = Math.min(N, Number(values.running));
const MAKE_CONCURRENCY = Number(values['make-concurrency']);
/** Issue 34: every app's files served within 60 s of an agent start after a reboot. */
const TARGET_S = 60;

const meminfo = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/meminfo', 'utf8'))![1]) / 1024;
/** Processes of the server: the ext4 journal threads and loop workers are kernel threads, one process each. */
const kernelThreads = () => readdirSync('/proc').filter((n) => /^\d+$/.test(n)).length;
const seconds = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e9;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

/** Runs `work` over `items`, `limit` at a time. */
async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

async function main() {
  const base = values.reuse ?? (await mkdtemp(path.join(os.tmpdir(), 'slipway-bench-storage-')));
  const o = { volumesDir: path.join(base, 'volumes'), storageDir: path.join(base, 'storage'), logger: silentLogger, startConcurrency: Number(values.concurrency) };
  const storage = new LoopExt4Storage(o);
  await storage.start();
  const content = (id: string) => `files of ${id}\n`;
  const reused: string[] = [];
  for (const name of values.reuse ? await readdir(path.join(o.storageDir, 'images')) : []) {
    const id = name.slice(0, -'.ext4'.length);
    if (name.endsWith('.ext4') && (await readFile(path.join(o.volumesDir, id, 'index.html'), 'utf8').catch(() => '')) === content(id)) reused.push(id);
  }
  const ids: string[] = values.reuse ? reused : Array.from({ length: N }, () => randomUUID());
  console.log(`load average at the start: ${load()}`);
  const before = { avail: meminfo('MemAvailable'), slab: meminfo('Slab'), sunreclaim: meminfo('SUnreclaim'), procs: kernelThreads(), disk: (await storage.serverDisk()).freeMb };
  const times: number[] = [];
  const t0 = process.hrtime.bigint();
  try {
    await pool(values.reuse ? [] : ids, MAKE_CONCURRENCY, async (id) => {
      const t = process.hrtime.bigint();
      await storage.create(id, LIMIT_MB);
      times.push(seconds(t) * 1000);
      await writeFile(path.join(o.volumesDir, id, 'index.html'), content(id));
    });
    const makeAll = seconds(t0);
    await new Promise((r) => setTimeout(r, 3000));
    const after = { avail: meminfo('MemAvailable'), slab: meminfo('Slab'), sunreclaim: meminfo('SUnreclaim'), procs: kernelThreads(), disk: (await storage.serverDisk()).freeMb };
    let allocated = 0;
    for (const name of await readdir(path.join(o.storageDir, 'images'))) if (name.endsWith('.ext4')) allocated += (await stat(path.join(o.storageDir, 'images', name))).blocks * 512;
    const tenth = Math.max(1, Math.floor(ids.length / 10));
    const first = times.slice(0, tenth).sort((a, b) => a - b);
    const last = times.slice(-tenth).sort((a, b) => a - b);

    // The reboot: nothing mounted. Then the agent's start: the running apps' folders first (the last RUNNING made, so
    // not the first in the directory's order), and every app's file asked for through the Files service's own code
    // from the moment the agent serves, in an order of its own (a request mounts its folder out of turn).
    await storage.unmountAll();
    const loadAtRemount = load();
    const running = new Set(ids.slice(-Math.min(RUNNING, ids.length)));
    let runningLeft = running.size;
    let runningAt = 0;
    const t1 = process.hrtime.bigint();
    const again = new LoopExt4Storage(o);
    const begun = await again.begin({
      first: [...running],
      onMounted: (id) => {
        if (running.has(id) && --runningLeft === 0) runningAt = seconds(t1);
      },
    });
    const serving = seconds(t1);
    const files = new ProjectFiles({ volumesDir: o.volumesDir, maxFileBytes: 1024 * 1024, logger: silentLogger, ready: (id) => again.ready(id) });
    let wrong = 0;
    const asked = [...ids].sort(() => Math.random() - 0.5);
    await pool(asked, 8, async (id) => {
      const opened = await files.read(id, ['index.html']).catch(() => null);
      if (!opened || (await text(opened.stream)) !== content(id)) wrong += 1;
    });
    const served = seconds(t1);
    const { mounted, failed } = await begun.mounted;
    const remount = seconds(t1);

    const t2 = process.hrtime.bigint();
    for (const id of ids) await storage.remove(id);
    const removeAll = seconds(t2);

    console.log(`folders: ${ids.length} × ${LIMIT_MB} MB (sparse ext4 images, loop-mounted), ${values.reuse ? `reused from ${values.reuse} (make figures: none)` : `made ${MAKE_CONCURRENCY} at a time`}`);
    if (!values.reuse) console.log(`make: ${makeAll.toFixed(1)} s in all; per folder p50/p90 first 10 % ${pct(first, 50).toFixed(0)}/${pct(first, 90).toFixed(0)} ms, last 10 % ${pct(last, 50).toFixed(0)}/${pct(last, 90).toFixed(0)} ms`);
    console.log(`memory: MemAvailable −${(before.avail - after.avail).toFixed(0)} MB (${(((before.avail - after.avail) * 1024) / ids.length).toFixed(0)} KB/folder), Slab +${(after.slab - before.slab).toFixed(0)} MB, of which unreclaimable +${(after.sunreclaim - before.sunreclaim).toFixed(0)} MB (${(((after.sunreclaim - before.sunreclaim) * 1024) / ids.length).toFixed(0)} KB/folder); MemAvailable is shared with other work: noisy`);
    console.log(`kernel threads (processes): +${after.procs - before.procs} (${((after.procs - before.procs) / ids.length).toFixed(2)}/folder)`);
    console.log(`disk really taken by the empty images: ${(allocated / 1024 / 1024).toFixed(1)} MB (${(allocated / 1024 / ids.length).toFixed(0)} KB/folder); server free −${before.disk - after.disk} MB (shared disk: noisy)`);
    console.log(`agent start after a reboot (nothing mounted; ${o.startConcurrency} mounts at once; load average ${loadAtRemount}):`);
    console.log(`  serving after ${serving.toFixed(2)} s; the ${running.size} running apps' folders mounted after ${runningAt.toFixed(1)} s; every app's file read through the Files service after ${served.toFixed(1)} s (${wrong} wrong or missing); all ${mounted} mounted after ${remount.toFixed(1)} s (${failed} failed)`);
    console.log(`  target (every app's files served within ${TARGET_S} s, running apps first): ${wrong + failed === 0 && served <= TARGET_S && runningAt > 0 ? 'met' : 'NOT met'}`);
    console.log(`remove all: ${removeAll.toFixed(1)} s`);
    if (wrong + failed > 0) process.exitCode = 1;
  } finally {
    for (const id of ids) await storage.remove(id).catch(() => undefined);
    await rm(base, { recursive: true, force: true });
    const left = (await run(['losetup', '-a'])).split('\n').filter((l) => l.includes(base));
    if (left.length) console.error(`loop devices left: ${left.length}`);
  }
}

void main();
