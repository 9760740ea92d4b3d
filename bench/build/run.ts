// Build benchmark through the whole platform (API, BullMQ workers, a real agent, Docker, Caddy): a .zip of the small
// Node sample app (one npm dependency, package-lock.json) uploaded → first 200 with its new body through the ingress.
//   cold: package.json differs from every earlier build (a nonce in its description), so npm ci runs;
//   warm: the same package.json and lockfile, changed source: the dependency layer comes from docker's cache.
// Usage: npx tsx bench/build/run.ts [--runs 3]. Needs the local base images (deploy/images/build.sh) and the npm
// registry through this machine's CA bundle (/etc/ssl/certs/ca-certificates.crt, or SLIPWAY_BUILD_CA_BUNDLE).
// With --starters nextjs,express (or all): the frameworks' starters of fixtures/starters instead (starters.ts).
import { randomBytes } from 'node:crypto';
import { createWorkspace, signUp } from '@slipway/testing';
import { nodeSample, zipOf } from '@slipway/testing/samples';
import { startTestPlatform } from '@slipway/testing/platform';
import globalSetup from '../../testing/src/global-setup';
import { benchStarters } from './starters';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RUNS = arg('runs', 3);
const CA = process.env.SLIPWAY_BUILD_CA_BUNDLE || '/etc/ssl/certs/ca-certificates.crt';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const fmt = (xs: number[]) => `p50 ${(p50(xs) / 1000).toFixed(1)} s, min ${(Math.min(...xs) / 1000).toFixed(1)}, max ${(Math.max(...xs) / 1000).toFixed(1)} (n=${xs.length})`;

async function main() {
  await globalSetup();
  const starters = process.argv.indexOf('--starters');
  const engineAt = process.argv.indexOf('--engine');
  const engine = engineAt > 0 && process.argv[engineAt + 1] === 'classic' ? 'classic' : 'buildkit';
  if (starters > 0) return benchStarters(process.argv[starters + 1] ?? 'nextjs,express', arg('runs', 1), arg('cpus', 2), CA, process.argv.includes('--verbose'), engine);
  const p = await startTestPlatform({ name: 'bench-build', stopGraceMs: 2_000, readyTimeoutMs: 30_000, build: { extraCaBundle: CA, cpus: 1, memoryMb: 1024 } });
  try {
    const client = p.client();
    await signUp(client);
    const ws = await createWorkspace(client);
    const apps = `/v1/workspaces/${ws.id}/apps`;
    const created = await client.post(apps, { name: `bench ${randomBytes(2).toString('hex')}`, kind: 'web', source: 'upload', memoryMb: 256, cpuMillis: 500 });
    if (created.status !== 201) throw new Error(`app creation answered ${created.status}: ${created.text}`);
    const app = created.body as { id: string; url: string };

    /** From the start of the upload to the first 200 through Caddy whose body is `expected`. */
    const timeTo = async (files: Record<string, string>, expected: string): Promise<{ ms: number; cached: boolean }> => {
      const t0 = performance.now();
      const res = await client.request('POST', `${apps}/${app.id}/deployments/upload`, { raw: zipOf(files), headers: { 'content-type': 'application/zip' } });
      if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${res.text}`);
      const id = (res.body as { id: string }).id;
      for (;;) {
        const r = await p.viaIngress(app.url).catch(() => null);
        if (r?.status === 200 && r.body === expected) break;
        const d = (await client.get(`${apps}/${app.id}/deployments/${id}`)).body as { status: string; failureReason: string | null };
        if (d.status === 'failed' || d.status === 'cancelled') throw new Error(`deployment ${d.status}: ${d.failureReason}`);
        if (performance.now() - t0 > 180_000) throw new Error('no answer within 180 s');
        await sleep(25);
      }
      const ms = performance.now() - t0;
      const log = (await client.get(`${apps}/${app.id}/deployments/${id}/logs?limit=1000`)).body as { data: { text: string }[] };
      const lines = log.data.map((l) => l.text);
      // BuildKit names the reused install step; the classic builder prints "Using cache" after it.
      const install = lines.findIndex((l) => /^Step \d+\/\d+ : RUN (npm ci|sh \/usr\/local\/bin\/slipway-install)/.test(l));
      const cached = lines.includes('Dependencies reused from the build cache (package.json and the lockfile are unchanged)') || (install >= 0 && /Using cache/.test(lines[install + 1] ?? ''));
      return { ms, cached };
    };

    const cold: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const nonce = `bench-${randomBytes(4).toString('hex')}`;
      const c = await timeTo(nodeSample(`c${i}`, nonce), `node c${i} 1m\n`);
      if (c.cached) throw new Error('the cold build reused the dependency layer: the nonce did not change package.json');
      cold.push(c.ms);
      const w = await timeTo(nodeSample(`w${i}`, nonce), `node w${i} 1m\n`);
      if (!w.cached) throw new Error('the warm build did not reuse the dependency layer');
      warm.push(w.ms);
      console.log(`run ${i + 1}: cold ${(c.ms / 1000).toFixed(1)} s, warm ${(w.ms / 1000).toFixed(1)} s (install step: Using cache)`);
    }
    console.log(`cold (first build, npm ci):        ${fmt(cold)}   target ≤ 45 s`);
    console.log(`warm (same lockfile, new source):  ${fmt(warm)}   target ≤ 10 s`);
  } finally {
    await p.close();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
