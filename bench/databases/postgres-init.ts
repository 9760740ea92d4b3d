// PostgreSQL's first start in the engine image, before and after issue 34's changes, alternated in one run: from
// `docker run` to the final server's "ready to accept connections" (after initdb, the temporary server, CREATE
// DATABASE and its stop), the data folder bind-mounted from this machine's disk as the agent does. The `after` variant
// is what the agent does now: `POSTGRES_INITDB_ARGS=--no-sync`, `TZ=Etc/UTC`, then the data folder synced in one
// parallel pass (apps/agent/src/databases/fsync-tree.ts), whose time is added.
// Usage: npx tsx bench/databases/postgres-init.ts [--runs 3] [--image slipway/postgres:15]. See bench/databases/README.md.
import { spawn } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fsyncTree } from '../../apps/agent/src/databases/fsync-tree';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : fallback;
};
const RUNS = Number(arg('runs', '3'));
const IMAGE = arg('image', 'slipway/postgres:15');
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

/** ms from `docker run` to the second "ready to accept connections" (the first is the temporary server's). */
async function firstStart(env: Record<string, string>): Promise<{ readyMs: number; dir: string; name: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-pg-init-'));
  // As the agent does: the engine's user (999 in the images) owns its data folder.
  await chown(dir, 999, 999);
  const name = `slipway-bench-pg-init-${process.pid}-${Date.now()}`;
  const args = ['run', '--rm', '--name', name, '-v', `${dir}:/var/lib/postgresql/data`, ...Object.entries({ POSTGRES_PASSWORD: 'bench-password-0123456789', POSTGRES_USER: 'app', POSTGRES_DB: 'appdb', PGDATA: '/var/lib/postgresql/data/pgdata', ...env }).flatMap(([k, v]) => ['-e', `${k}=${v}`]), IMAGE];
  const t0 = performance.now();
  const child = spawn('docker', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let readies = 0;
  const readyMs = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no second ready line within 120 s')), 120_000);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        if (/ready to accept connections/.test(line) && ++readies === 2) {
          clearTimeout(timer);
          resolve(performance.now() - t0);
        }
      });
    }
    child.on('exit', (code) => reject(new Error(`docker run exited (${code}) before the server was ready`)));
  });
  return { readyMs, dir, name };
}

async function stop(run: { dir: string; name: string }): Promise<void> {
  await new Promise((r) => spawn('docker', ['rm', '-f', run.name], { stdio: 'ignore' }).on('exit', r));
  await rm(run.dir, { recursive: true, force: true });
}

async function main() {
  console.log(`${new Date().toISOString()} load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const before: number[] = [];
  const after: number[] = [];
  const syncs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const a = await firstStart({});
    before.push(a.readyMs);
    await stop(a);
    const b = await firstStart({ POSTGRES_INITDB_ARGS: '--no-sync', TZ: 'Etc/UTC' });
    const t = performance.now();
    await fsyncTree(b.dir);
    syncs.push(performance.now() - t);
    after.push(b.readyMs + syncs.at(-1)!);
    await stop(b);
  }
  const fmt = (xs: number[]) => `p50 ${p50(xs).toFixed(0)} ms, min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)} (n=${xs.length})`;
  console.log(`${IMAGE} first start (docker run → final server ready), data folder on this machine's disk:`);
  console.log(`  before (initdb syncs file after file):                 ${fmt(before)}`);
  console.log(`  after (--no-sync, TZ, then one parallel fsync pass):   ${fmt(after)}   of which the fsync pass ${fmt(syncs)}`);
  console.log(`${new Date().toISOString()} load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
