// The frameworks' starters (fixtures/starters) through the whole platform: .zip upload → first 200 through the ingress
// whose body carries this run's marker, for a cold build (package.json never seen: npm ci from the registry) and a warm
// one (the same package.json and lockfile, one source file changed), and the size of the image the build produced.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createWorkspace, signUp } from '@slipway/testing';
import Docker from 'dockerode';
import { startTestPlatform } from '@slipway/testing/platform';
import { verdict } from '../lib/verdict';

const STARTERS = path.resolve(__dirname, '../../fixtures/starters');

interface Starter {
  /** The source file a warm build changes, and how: the marker lands in the served page. */
  edit: { file: string; from: string; to: (marker: string) => string };
  /** The fixture folder when it is not the starter's name, and edits every copy gets (a variant of a starter). */
  fixture?: string;
  variant?: { file: string; from: string; to: string };
  /** The page whose body must contain the marker. */
  path: string;
  memoryMb: number;
  targets: { coldS?: number; warmS?: number; imageMb?: number };
}

const ALL: Record<string, Starter> = {
  nextjs: { edit: { file: 'app/page.tsx', from: 'To get started, edit the', to: (m) => `To get started ${m}, edit the` }, path: '/', memoryMb: 256, targets: { coldS: 60, warmS: 20, imageMb: 300 } },
  // The same starter with Turbopack's build cache turned on by the app (experimental in Next 16, off by default; kept
  // between builds in the app's .next/cache mount): what the per-app cache gives an app that opts in.
  'nextjs-fscache': {
    fixture: 'nextjs',
    variant: { file: 'next.config.ts', from: 'cacheComponents: true,', to: 'cacheComponents: true,\n  experimental: { turbopackFileSystemCacheForBuild: true },' },
    edit: { file: 'app/page.tsx', from: 'To get started, edit the', to: (m) => `To get started ${m}, edit the` },
    path: '/',
    memoryMb: 256,
    targets: {},
  },
  express: { edit: { file: 'public/index.html', from: 'Welcome to Express', to: (m) => `Welcome to Express ${m}` }, path: '/', memoryMb: 128, targets: { coldS: 10, warmS: 4 } },
  'sveltekit-node': { edit: { file: 'src/routes/+page.svelte', from: 'Welcome to SvelteKit', to: (m) => `Welcome to SvelteKit ${m}` }, path: '/', memoryMb: 256, targets: { warmS: 20 } },
  nuxt: { edit: { file: 'app/app.vue', from: '<NuxtWelcome />', to: (m) => `<p>${m}</p>\n    <NuxtWelcome />` }, path: '/', memoryMb: 256, targets: { warmS: 20 } },
  'vite-react': { edit: { file: 'index.html', from: '<title>vite-react</title>', to: (m) => `<title>vite-react ${m}</title>` }, path: '/', memoryMb: 128, targets: {} },
  nestjs: { edit: { file: 'src/app.service.ts', from: "'Hello World!'", to: (m) => `'Hello World! ${m}'` }, path: '/', memoryMb: 256, targets: {} },
  fastify: { edit: { file: 'routes/root.js', from: 'return { root: true }', to: (m) => `return { root: true, marker: '${m}' }` }, path: '/', memoryMb: 128, targets: {} },
  'express-native': { edit: { file: 'server.js', from: 'better-sqlite3 and bcrypt', to: (m) => `better-sqlite3 and bcrypt ${m}` }, path: '/', memoryMb: 128, targets: {} },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The machine is shared: every figure goes with the load average it was measured under. */
const load = () => `load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`;

interface LogLine {
  phase: 'build' | 'deploy' | 'runtime';
  text: string;
  at: string;
}

/**
 * Where a deployment's time went, from its log's timestamps (same machine, same clock): the upload and the wait for the
 * job until the first build line, the build (the agent's "Step times" line splits it), the rollout until its last line,
 * and the rest until the ingress answered with the new page (negative when the new page was served before the rollout
 * finished: an app serving files from its project folder).
 */
function phasesOf(entries: LogLine[], wall0: number, wallEnd: number): string {
  const at = (l: LogLine | undefined) => (l ? Date.parse(l.at) : NaN);
  const build = entries.filter((l) => l.phase === 'build');
  const deploy = entries.filter((l) => l.phase === 'deploy');
  const b0 = at(build[0]);
  const b1 = at(build[build.length - 1]);
  const d1 = at(deploy[deploy.length - 1]);
  const f = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : '?');
  const steps = build.find((l) => l.text.startsWith('Step times: '))?.text.slice('Step times: '.length) ?? 'no step times';
  // The rollout's own lines, each with its offset from the end of the build: where a rollout's seconds go.
  const rollout = deploy.map((l) => `+${f(at(l) - b1)} ${l.text.slice(0, 90)}`).join(' | ');
  return `upload+queue ${f(b0 - wall0)}, build ${f(b1 - b0)} (${steps}), rollout ${f(d1 - b1)}, served ${f(wallEnd - b1)} after the build\n    rollout: ${rollout}`;
}
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

/** The starter's fixture copied into `dir`, with its variant's edit. */
async function copyStarter(name: string, dir: string): Promise<void> {
  const starter = ALL[name]!;
  await cp(path.join(STARTERS, starter.fixture ?? name), dir, { recursive: true });
  if (!starter.variant) return;
  const file = path.join(dir, starter.variant.file);
  const text = await readFile(file, 'utf8');
  if (!text.includes(starter.variant.from)) throw new Error(`${name}: ${starter.variant.file} no longer contains ${JSON.stringify(starter.variant.from)}`);
  await writeFile(file, text.replace(starter.variant.from, starter.variant.to));
}

/** A copy of the starter with a nonce in package.json (cold: a dependency layer no build has made) and the marker in its source. */
async function zipOf(name: string, nonce: string, marker: string): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `slipway-bench-${name}-`));
  try {
    await copyStarter(name, dir);
    const pkgPath = path.join(dir, 'package.json');
    const pkg = JSON.parse(await readFile(pkgPath, 'utf8')) as Record<string, unknown>;
    await writeFile(pkgPath, JSON.stringify({ ...pkg, description: `bench ${nonce}` }, null, 2) + '\n');
    const { edit } = ALL[name]!;
    const file = path.join(dir, edit.file);
    const text = await readFile(file, 'utf8');
    if (!text.includes(edit.from)) throw new Error(`${name}: ${edit.file} no longer contains ${JSON.stringify(edit.from)}`);
    await writeFile(file, text.replace(edit.from, edit.to(marker)));
    return execFileSync('zip', ['-q', '-r', '-', '.'], { cwd: dir, maxBuffer: 50_000_000 });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The baseline of the same run: a bare `docker build` of the same starter on the same engine, with the Dockerfile a
 * user would write by hand (install from the lockfile, then the build), cold (a package.json no build has seen) and
 * warm (one source file changed). No platform: no upload, extraction, detection, rollout or ingress.
 */
async function bareDockerBuild(name: string, nonce: string, marker: string, engine: 'classic' | 'buildkit', ca: string): Promise<number> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `slipway-bare-${name}-`));
  try {
    await copyStarter(name, dir);
    await cp(ca, path.join(dir, 'slipway-ca.crt'));
    const pkgPath = path.join(dir, 'package.json');
    const pkg = JSON.parse(await readFile(pkgPath, 'utf8')) as Record<string, unknown>;
    await writeFile(pkgPath, JSON.stringify({ ...pkg, description: `bare ${nonce}` }, null, 2) + '\n');
    const { edit } = ALL[name]!;
    const file = path.join(dir, edit.file);
    await writeFile(file, (await readFile(file, 'utf8')).replace(edit.from, edit.to(marker)));
    const hasBuild = typeof (pkg.scripts as Record<string, unknown> | undefined)?.build === 'string';
    await writeFile(
      path.join(dir, 'Dockerfile'),
      [
        'FROM slipway/node-build:24',
        'WORKDIR /app',
        'COPY slipway-ca.crt /tmp/ca.crt',
        'ENV NODE_EXTRA_CA_CERTS=/tmp/ca.crt npm_config_cafile=/tmp/ca.crt',
        'COPY package.json package-lock.json ./',
        'RUN npm ci --no-audit --no-fund',
        'COPY . .',
        ...(hasBuild ? ['RUN npm run build'] : []),
        '',
      ].join('\n'),
    );
    await writeFile(path.join(dir, '.dockerignore'), 'node_modules\n.git\n');
    const t0 = performance.now();
    execFileSync('/usr/bin/docker', ['build', '-q', '-t', `slipway-bench-bare/${name}:latest`, dir], { env: { ...process.env, DOCKER_BUILDKIT: engine === 'buildkit' ? '1' : '0' }, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 20_000_000 });
    return performance.now() - t0;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchStarters(list: string, runs: number, cpus: number, ca: string, verbose = false, engine: 'classic' | 'buildkit' = 'buildkit'): Promise<void> {
  // `sveltekit` is the adapter-node starter (the one a server runs as it is).
  const names = list === 'all' ? Object.keys(ALL) : list.split(',').map((n) => (n === 'sveltekit' ? 'sveltekit-node' : n));
  for (const n of names) if (!ALL[n]) throw new Error(`unknown starter ${n} (known: ${Object.keys(ALL).join(', ')})`);
  const docker = new Docker({ socketPath: '/var/run/docker.sock' });
  const p = await startTestPlatform({ name: 'bench-starters', stopGraceMs: 2_000, readyTimeoutMs: 30_000, build: { extraCaBundle: ca, cpus, memoryMb: 3072, engine } });
  console.log(`builds: engine ${engine}, ${cpus} CPU, 3072 MB; ${runs} run(s) of cold then warm per starter, each beside a bare docker build of the same starter; ${load()}`);
  let failedAll = 0;
  try {
    const client = p.client();
    await signUp(client);
    const ws = await createWorkspace(client);
    const apps = `/v1/workspaces/${ws.id}/apps`;
    for (const name of names) {
      const starter = ALL[name]!;
      const created = await client.post(apps, { name: `${name} ${randomBytes(2).toString('hex')}`, kind: 'web', source: 'upload', memoryMb: starter.memoryMb });
      if (created.status !== 201) throw new Error(`app creation answered ${created.status}: ${created.text}`);
      const app = created.body as { id: string; url: string };
      if (verbose) console.log(`${name}: app ${app.id} at ${app.url}`);

      /** Upload → first 200 through Caddy whose body has the marker; the milliseconds, the image's size in MB, whether npm's install layer was reused, and where the time went. */
      const timeTo = async (zip: Buffer, marker: string) => {
        const wall0 = Date.now();
        const t0 = performance.now();
        const res = await client.request('POST', `${apps}/${app.id}/deployments/upload`, { raw: zip, headers: { 'content-type': 'application/zip' } });
        if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${res.text}`);
        const id = (res.body as { id: string }).id;
        for (;;) {
          const r = await p.viaIngress(app.url, starter.path).catch(() => null);
          if (r?.status === 200 && r.body.includes(marker)) break;
          const d = (await client.get(`${apps}/${app.id}/deployments/${id}`)).body as { status: string; failureReason: string | null };
          if (d.status === 'failed' || d.status === 'cancelled') {
            const log = (await client.get(`${apps}/${app.id}/deployments/${id}/logs?limit=1000`)).body as { data: { text: string }[] };
            throw new Error(`deployment ${d.status}: ${d.failureReason}\n    ${log.data.slice(-12).map((l) => l.text).join('\n    ')}`);
          }
          if (performance.now() - t0 > 600_000) throw new Error(`no answer within 600 s (deployment ${d.status}, last answer ${r?.status ?? 'none'}: ${(r?.body ?? '').slice(0, 120)})`);
          if (verbose && Math.floor((performance.now() - t0) / 10_000) !== Math.floor((performance.now() - t0 - 50) / 10_000)) {
            console.log(`  … ${s(performance.now() - t0)}: deployment ${d.status}, ingress ${r?.status ?? 'no answer'} ${(r?.body ?? '').replace(/\s+/g, ' ').slice(0, 100)}`);
          }
          await sleep(50);
        }
        const ms = performance.now() - t0;
        const wallEnd = Date.now();
        const image = await docker.getImage(`slipway-app/${app.id}:${id}`).inspect();
        const entries: LogLine[] = [];
        for (let after = 0; ; ) {
          const page = (await client.get(`${apps}/${app.id}/deployments/${id}/logs?limit=1000&after=${after}`)).body as { data: LogLine[]; nextAfter: number };
          entries.push(...page.data);
          if (page.data.length < 1000) break;
          after = page.nextAfter;
        }
        const lines = entries.map((l) => l.text);
        const phases = phasesOf(entries, wall0, wallEnd);
        const install = lines.findIndex((l) => /^Step \d+\/\d+ : RUN (npm ci|npm install|pnpm|yarn|corepack|sh \/usr\/local\/bin\/slipway-install)/.test(l));
        const cached = lines.includes('Dependencies reused from the build cache (package.json and the lockfile are unchanged)') || (install >= 0 && /Using cache/.test(lines[install + 1] ?? ''));
        return { ms, imageMb: image.Size / 1e6, cached, phases };
      };

      const cold: number[] = [];
      const warm: number[] = [];
      const sizes: number[] = [];
      const bareCold: number[] = [];
      const bareWarm: number[] = [];
      let failed = 0;
      for (let i = 0; i < runs; i++) {
        const nonce = randomBytes(4).toString('hex');
        try {
          const c = await timeTo(await zipOf(name, nonce, `c${i}${nonce}`), `c${i}${nonce}`);
          if (c.cached) throw new Error('the cold build reused the dependency layer');
          cold.push(c.ms);
          sizes.push(c.imageMb);
          const w = await timeTo(await zipOf(name, nonce, `w${i}${nonce}`), `w${i}${nonce}`);
          if (!w.cached) throw new Error('the warm build did not reuse the dependency layer');
          warm.push(w.ms);
          const bc = await bareDockerBuild(name, nonce, `bc${i}`, engine, ca);
          const bw = await bareDockerBuild(name, nonce, `bw${i}`, engine, ca);
          bareCold.push(bc);
          bareWarm.push(bw);
          console.log(`${name} run ${i + 1}: cold ${s(c.ms)}, warm ${s(w.ms)}, image ${c.imageMb.toFixed(0)} MB; bare docker build cold ${s(bc)}, warm ${s(bw)}; ${load()}`);
          console.log(`  cold: ${c.phases}`);
          console.log(`  warm: ${w.phases}`);
        } catch (e) {
          failed++;
          console.log(`${name} run ${i + 1}: FAILED ${(e as Error).message}`);
        }
      }
      failedAll += failed;
      const t = starter.targets;
      const line = (label: string, xs: number[], target: number | undefined, unit: 's' | 'MB') => {
        if (xs.length === 0) return console.log(`${name} ${label}: no figure (${failed} run(s) failed)`);
        const v = unit === 's' ? p50(xs) / 1000 : p50(xs);
        const fig = unit === 's' ? `p50 ${v.toFixed(1)} s (min ${(Math.min(...xs) / 1000).toFixed(1)}, max ${(Math.max(...xs) / 1000).toFixed(1)})` : `${v.toFixed(0)} MB`;
        console.log(`${name} ${label}: ${fig}${target !== undefined ? `   target ≤ ${target} ${unit}: ${verdict(v <= target, failed)}` : ''}`);
      };
      line('cold build → serving', cold, t.coldS, 's');
      line('warm build → serving', warm, t.warmS, 's');
      line('image size', sizes, t.imageMb, 'MB');
      line('baseline: bare docker build, cold', bareCold, undefined, 's');
      line('baseline: bare docker build, warm', bareWarm, undefined, 's');
      await client.delete(`${apps}/${app.id}`);
      await docker.getImage(`slipway-bench-bare/${name}:latest`).remove().catch(() => undefined);
    }
  } finally {
    await p.close();
  }
  if (failedAll > 0) process.exitCode = 1;
}
