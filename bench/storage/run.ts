// Project-folder density: N folders made with the agent's storage layer (LoopExt4Storage) on this server's kernel,
// then what they cost: time to make one (first and last 10 %), kernel memory and threads, disk really taken, the
// time to mount them all again at start (as after a reboot), and to remove them.
//   npx tsx bench/storage/run.ts [--folders 2000] [--mb 512] [--concurrency 8]
// Needs root. Everything is unmounted and removed at the end.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { LoopExt4Storage } from '../../apps/agent/src/storage/loop-ext4.storage';
import { run } from '../../apps/agent/src/storage/run';
import { silentLogger } from '@slipway/testing/logger';

const { values } = parseArgs({ options: { folders: { type: 'string', default: '2000' }, mb: { type: 'string', default: '512' }, concurrency: { type: 'string', default: '8' } } });
const N = Number(values.folders);
const LIMIT_MB = Number(values.mb);

const meminfo = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/meminfo', 'utf8'))![1]) / 1024;
/** Processes of the server: the ext4 journal threads and loop workers are kernel threads, one process each. */
const kernelThreads = () => readdirSync('/proc').filter((n) => /^\d+$/.test(n)).length;
const seconds = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e9;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

async function main() {
  const base = await mkdtemp(path.join(os.tmpdir(), 'slipway-bench-storage-'));
  const o = { volumesDir: path.join(base, 'volumes'), storageDir: path.join(base, 'storage'), logger: silentLogger, startConcurrency: Number(values.concurrency) };
  const storage = new LoopExt4Storage(o);
  await storage.start();
  const ids = Array.from({ length: N }, () => randomUUID());
  const before = { avail: meminfo('MemAvailable'), slab: meminfo('Slab'), sunreclaim: meminfo('SUnreclaim'), procs: kernelThreads(), disk: (await storage.serverDisk()).freeMb };
  const times: number[] = [];
  const t0 = process.hrtime.bigint();
  try {
    for (const id of ids) {
      const t = process.hrtime.bigint();
      await storage.create(id, LIMIT_MB);
      times.push(seconds(t) * 1000);
    }
    const makeAll = seconds(t0);
    await new Promise((r) => setTimeout(r, 3000));
    const after = { avail: meminfo('MemAvailable'), slab: meminfo('Slab'), sunreclaim: meminfo('SUnreclaim'), procs: kernelThreads(), disk: (await storage.serverDisk()).freeMb };
    let allocated = 0;
    for (const name of await readdir(path.join(o.storageDir, 'images'))) if (name.endsWith('.ext4')) allocated += (await stat(path.join(o.storageDir, 'images', name))).blocks * 512;
    const tenth = Math.max(1, Math.floor(N / 10));
    const first = times.slice(0, tenth).sort((a, b) => a - b);
    const last = times.slice(-tenth).sort((a, b) => a - b);

    await storage.unmountAll();
    const t1 = process.hrtime.bigint();
    await new LoopExt4Storage(o).start();
    const remount = seconds(t1);

    const t2 = process.hrtime.bigint();
    for (const id of ids) await storage.remove(id);
    const removeAll = seconds(t2);

    console.log(`folders: ${N} × ${LIMIT_MB} MB (sparse ext4 images, loop-mounted)`);
    console.log(`make: ${makeAll.toFixed(1)} s in all; per folder p50/p90 first 10 % ${pct(first, 50).toFixed(0)}/${pct(first, 90).toFixed(0)} ms, last 10 % ${pct(last, 50).toFixed(0)}/${pct(last, 90).toFixed(0)} ms`);
    console.log(`memory: MemAvailable −${(before.avail - after.avail).toFixed(0)} MB (${(((before.avail - after.avail) * 1024) / N).toFixed(0)} KB/folder), Slab +${(after.slab - before.slab).toFixed(0)} MB, of which unreclaimable +${(after.sunreclaim - before.sunreclaim).toFixed(0)} MB (${(((after.sunreclaim - before.sunreclaim) * 1024) / N).toFixed(0)} KB/folder); MemAvailable is shared with other work: noisy`);
    console.log(`kernel threads (processes): +${after.procs - before.procs} (${((after.procs - before.procs) / N).toFixed(2)}/folder)`);
    console.log(`disk really taken by the empty images: ${(allocated / 1024 / 1024).toFixed(1)} MB (${(allocated / 1024 / N).toFixed(0)} KB/folder); server free −${before.disk - after.disk} MB (shared disk: noisy)`);
    console.log(`mount all again at start (concurrency ${o.startConcurrency}): ${remount.toFixed(1)} s; remove all: ${removeAll.toFixed(1)} s`);
  } finally {
    for (const id of ids) await storage.remove(id).catch(() => undefined);
    await rm(base, { recursive: true, force: true });
    const left = (await run(['losetup', '-a'])).split('\n').filter((l) => l.includes(base));
    if (left.length) console.error(`loop devices left: ${left.length}`);
  }
}

void main();
