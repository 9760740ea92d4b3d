// The CLI's cost: `slipway deploy` of the Express starter (zip honouring .gitignore, upload with progress, follow the
// log, exit when live) against the same upload done by hand in the same run: `zip` + `curl --data-binary` of the same
// files, then polling the deployment every 250 ms until live. Runs alternate (curl, cli, curl, cli, …) on one app after
// a warm-up deployment that fills the dependency cache, so both sides build the same way.
// The upload step alone (until the deployment is queued) is timed too, for reference.
// Usage: npx tsx bench/cli/run.ts [--runs 3]. See bench/cli/README.md.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { createWorkspace, signUp } from '@slipway/testing';
import { startTestPlatform } from '@slipway/testing/platform';
import globalSetup from '../../testing/src/global-setup';
import { exitOnFailures, verdict } from '../lib/verdict';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RUNS = arg('runs', 3);
const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'apps/slipway/dist/slipway.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const fmt = (xs: number[]) => `p50 ${p50(xs).toFixed(0)} ms, min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)} (n=${xs.length})`;

function run(cmd: string, args: string[], o: { cwd: string; env?: Record<string, string> }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: o.cwd, env: { ...process.env, ...o.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function main() {
  await globalSetup();
  execFileSync(process.execPath, [path.join(ROOT, 'apps/slipway/build.mjs')], { cwd: ROOT });
  const p = await startTestPlatform({ name: 'bench-cli', readyTimeoutMs: 30_000, stopGraceMs: 2_000, build: { extraCaBundle: '/etc/ssl/certs/ca-certificates.crt', cpus: 2, memoryMb: 2048 } });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-cli-'));
  let failed = 0;
  try {
    const client = p.client();
    await signUp(client);
    const ws = await createWorkspace(client);
    const token = (await client.post(`/v1/workspaces/${ws.id}/tokens`, { name: 'bench' })).body.token as string;
    const created = await client.post(`/v1/workspaces/${ws.id}/apps`, { name: `bench ${randomBytes(2).toString('hex')}`, kind: 'web', source: 'upload', memoryMb: 256 });
    const appId = created.body.id as string;
    const project = path.join(tmp, 'web');
    cpSync(path.join(ROOT, 'fixtures/starters/express'), project, { recursive: true });
    writeFileSync(path.join(project, '.gitignore'), 'big-assets/\n');
    mkdirSync(path.join(project, 'big-assets'));
    writeFileSync(path.join(project, 'big-assets/video.bin'), randomBytes(24 * 1024 * 1024));
    const env = { SLIPWAY_URL: p.base, SLIPWAY_TOKEN: token, XDG_CONFIG_HOME: path.join(tmp, 'config'), NO_COLOR: '1' };
    const index = path.join(project, 'public/index.html');
    const original = readFileSync(index, 'utf8');
    // Every deployment changes a file, as a real one would (the dependency layer stays cached: same lockfile).
    const touch = (n: string) => writeFileSync(index, original.replace('Welcome to Express', `Welcome to run ${n}`));

    const cli = async () => {
      const started = performance.now();
      const r = await run(process.execPath, [BIN, 'deploy', '--app', appId], { cwd: project, env });
      const ms = performance.now() - started;
      if (r.code !== 0) throw new Error(`slipway deploy exited ${r.code}: ${r.stderr}`);
      return ms;
    };
    /** Until the deployment is live (untimed when `started` is undefined). */
    const untilLive = async (id: string) => {
      for (;;) {
        const d = (await client.withBearer(token).get(`/v1/workspaces/${ws.id}/apps/${appId}/deployments/${id}`)).body;
        if (d.status === 'live') return;
        if (['failed', 'cancelled'].includes(d.status)) throw new Error(`deployment ${d.status}: ${d.failureReason}`);
        await sleep(250);
      }
    };
    const curlUpload = async () => {
      const zip = path.join(tmp, 'upload.zip');
      rmSync(zip, { force: true });
      const z = await run('zip', ['-q', '-r', zip, '.', '-x', 'node_modules/*', '.git/*', 'big-assets/*', '.env*'], { cwd: project });
      if (z.code !== 0) throw new Error(`zip exited ${z.code}: ${z.stderr}`);
      const up = await run('curl', ['-sS', '--fail-with-body', '-X', 'POST', '-H', `Authorization: Bearer ${token}`, '-H', 'Content-Type: application/zip', '--data-binary', `@${zip}`, `${p.base}/v1/workspaces/${ws.id}/apps/${appId}/deployments/upload`], { cwd: project });
      if (up.code !== 0) throw new Error(`curl exited ${up.code}: ${up.stdout}${up.stderr}`);
      return JSON.parse(up.stdout).id as string;
    };
    const curl = async () => {
      const started = performance.now();
      await untilLive(await curlUpload());
      return performance.now() - started;
    };
    // The upload step alone: from the command to the queued deployment (then its rollout is awaited, untimed).
    const uploadOnly = async (side: 'cli' | 'curl') => {
      const started = performance.now();
      let id: string;
      if (side === 'curl') id = await curlUpload();
      else {
        const r = await run(process.execPath, [BIN, 'deploy', '--app', appId, '--no-follow', '--json'], { cwd: project, env });
        if (r.code !== 0) throw new Error(`slipway deploy --no-follow exited ${r.code}: ${r.stderr}`);
        id = JSON.parse(r.stdout).id as string;
      }
      const ms = performance.now() - started;
      await untilLive(id);
      return ms;
    };

    process.stdout.write('warm-up deployment (fills the dependency cache)…\n');
    touch('warm-up');
    await cli();
    const times = { cli: [] as number[], curl: [] as number[], cliUpload: [] as number[], curlUpload: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      try {
        touch(`curl ${i}`);
        times.curl.push(await curl());
        touch(`cli ${i}`);
        times.cli.push(await cli());
        touch(`curl upload ${i}`);
        times.curlUpload.push(await uploadOnly('curl'));
        touch(`cli upload ${i}`);
        times.cliUpload.push(await uploadOnly('cli'));
      } catch (e) {
        failed++;
        process.stdout.write(`run ${i} failed: ${(e as Error).message}\n`);
      }
    }
    const ratio = times.curl.length && times.cli.length ? p50(times.cli) / p50(times.curl) : NaN;
    process.stdout.write(`\nzip + curl + poll (baseline): ${fmt(times.curl)}\n`);
    process.stdout.write(`slipway deploy:              ${fmt(times.cli)}\n`);
    process.stdout.write(`the CLI adds ${((ratio - 1) * 100).toFixed(1)} % (target ≤ 10 %): ${verdict(ratio <= 1.1, failed)}\n`);
    process.stdout.write(`\nthe upload step alone (command → deployment queued), for reference:\n`);
    process.stdout.write(`zip + curl:                  ${fmt(times.curlUpload)}\n`);
    process.stdout.write(`slipway deploy --no-follow:  ${fmt(times.cliUpload)} (Node start, walking the folder with the ignore rules, zip, upload)\n`);
  } finally {
    await p.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  exitOnFailures(failed);
}

void main();
