import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SYSTEM_PATH } from '../storage/run';
import { BuildError } from './extract';
import { failureReason } from './failure-reason';

type Emit = (line: string) => void;

export interface BuildKitRun {
  /** The docker CLI (Debian's 20.10 client: /usr/bin/docker); DOCKER_BUILDKIT=1 makes it use the engine's BuildKit. */
  dockerCli: string;
  /** The engine's socket (DOCKER_HOST for the CLI). */
  dockerSocket: string;
  /** The build folder: the context, with the generated Dockerfile and .dockerignore at its root. */
  context: string;
  imageRef: string;
  labels: Record<string, string>;
  /** BuildKit secrets: id → a file in the build folder (mounted only into the RUN steps that name it, never in a layer). */
  secrets: Record<string, string>;
  /** Where the CLI writes the image id (outside the context). */
  iidfile: string;
  nocache: boolean;
  timeoutMs: number;
  memoryMb: number;
  signal?: AbortSignal;
}

/**
 * `docker build` with BuildKit, through the docker CLI spawned with an argv array (the Engine API builds with BuildKit
 * without a session, but secrets need the session only the CLI speaks: docs/decisions/0030). Output comes as
 * `--progress=plain`; each step's lines are emitted as they come, `CACHED` steps are named, and a failed step's
 * reason is the tool's own error (failure-reason.ts). Returns the image id (`--iidfile`).
 */
export async function buildWithBuildKit(o: BuildKitRun, emit: Emit): Promise<string> {
  const iidfile = o.iidfile;
  const args = ['build', '--progress=plain', '--file', path.join(o.context, 'Dockerfile'), '--tag', o.imageRef, '--iidfile', iidfile];
  for (const [k, v] of Object.entries(o.labels)) args.push('--label', `${k}=${v}`);
  for (const [id, file] of Object.entries(o.secrets)) args.push('--secret', `id=${id},src=${file}`);
  if (o.nocache) args.push('--no-cache');
  args.push(o.context);
  const child = spawn(o.dockerCli, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    // Nothing of the agent's environment: the CLI's own settings only (its config under the user's home).
    env: { PATH: SYSTEM_PATH, HOME: os.homedir(), DOCKER_BUILDKIT: '1', DOCKER_HOST: `unix://${o.dockerSocket}` },
  });
  const steps = new Map<string, string>();
  const output = new Map<string, string[]>();
  // How long each step took (`#N DONE 12.3s`), for the summary line after the build.
  const took = new Map<string, number>();
  const order: string[] = [];
  let failed: { vertex: string; message: string } | null = null;
  const tail: string[] = [];
  const onLine = (raw: string) => {
    const line = raw.trimEnd();
    if (!line) return;
    const m = /^#(\d+) (.*)$/.exec(line);
    if (!m) {
      tail.push(line);
      if (tail.length > 40) tail.shift();
      return;
    }
    const [, vertex, rest] = m as unknown as [string, string, string];
    if (!order.includes(vertex)) order.push(vertex);
    const done = /^DONE (\d+(?:\.\d+)?)s$/.exec(rest);
    if (done) {
      took.set(vertex, Number(done[1]));
      return;
    }
    const step = /^\[([^\]]+)\] (.*)$/.exec(rest);
    if (step && !steps.has(vertex)) {
      steps.set(vertex, step[2]!);
      if (!step[1]!.startsWith('internal')) emit(`[${step[1]}] ${step[2]}`);
      return;
    }
    if (!steps.has(vertex) && /^exporting to image$/.test(rest)) steps.set(vertex, rest);
    if (/^(sha256:|DONE |transferring |extracting |resolve |preparing |exporting |writing image|naming to)/.test(rest) || /^\[internal\]|load (build definition|\.dockerignore|metadata)/.test(rest)) return;
    if (rest === 'CACHED') {
      const name = steps.get(vertex);
      if (name && !name.startsWith('FROM ')) emit(`  cached: ${name}`);
      if (name?.startsWith('RUN ') && /sh \/usr\/local\/bin\/slipway-install|&& mkdir -p node_modules$/.test(name)) emit('Dependencies reused from the build cache (package.json and the lockfile are unchanged)');
      return;
    }
    const err = /^ERROR: (.*)$/.exec(rest);
    if (err) {
      failed ??= { vertex, message: err[1]! };
      emit(`  error: ${err[1]}`);
      return;
    }
    const out = /^\d+\.\d+ (.*)$/.exec(rest);
    const text = out ? out[1]! : rest;
    const lines = output.get(vertex) ?? [];
    lines.push(text);
    if (lines.length > 400) lines.splice(0, lines.length - 200);
    output.set(vertex, lines);
    emit(text);
  };
  const splitter = (stream: NodeJS.ReadableStream) => {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (d: string) => {
      const parts = (rest + d).split(/\r?\n/);
      rest = parts.pop() ?? '';
      for (const p of parts) onLine(p);
    });
    stream.on('end', () => rest && onLine(rest));
  };
  splitter(child.stdout);
  splitter(child.stderr);

  let why: 'timeout' | 'cancelled' | null = null;
  const stop = (reason: 'timeout' | 'cancelled') => {
    why ??= reason;
    // The CLI cancels the build on SIGTERM (the session closes, BuildKit stops the running step).
    child.kill('SIGTERM');
  };
  const onAbort = () => stop('cancelled');
  o.signal?.addEventListener('abort', onAbort);
  const timer = setTimeout(() => stop('timeout'), o.timeoutMs);
  const code = await new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (c) => resolve(c ?? 1));
  }).finally(() => {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onAbort);
  });
  if (why === 'cancelled') throw new BuildError('The build was cancelled');
  if (why === 'timeout') throw new BuildError(`The build took longer than ${Math.round(o.timeoutMs / 1000)} s and was stopped`);
  if (code !== 0) {
    const f = failed as { vertex: string; message: string } | null;
    if (f) {
      const exit = /exit code: (\d+)/.exec(f.message)?.[1];
      const docker = exit ? `The command returned a non-zero code: ${exit}` : f.message;
      throw new BuildError(failureReason(steps.get(f.vertex) ?? '', output.get(f.vertex) ?? [], docker, o.memoryMb));
    }
    const last = tail.filter((l) => !/^-+$/.test(l)).slice(-3).join(' ');
    throw new BuildError(`The build failed: ${last || `docker build exited with ${code}`}`);
  }
  const id = (await readFile(iidfile, 'utf8').catch(() => '')).trim();
  if (!id) throw new BuildError('The build finished without an image');
  const summary = stepTimes(order.map((v) => ({ name: steps.get(v) ?? '', seconds: took.get(v) ?? 0 })));
  if (summary) emit(summary);
  return id;
}

/** Steps shorter than this are left out of the summary (COPY of a few files, ENV, WORKDIR). */
const SUMMARY_FLOOR_S = 0.5;

/**
 * One line saying where a build's time went, its longest steps first (`Step times: RUN … npm ci 23.4 s, …`), from
 * BuildKit's `DONE 12.3s` of each step; `null` when no step took half a second. RUN steps are named by their command
 * without the platform's cache marker and mounts.
 */
export function stepTimes(steps: readonly { name: string; seconds: number }[]): string | null {
  const named = steps
    .filter((s) => s.name && !s.name.startsWith('internal') && s.seconds >= SUMMARY_FLOOR_S)
    .map((s) => ({ name: shortStep(s.name), seconds: s.seconds }))
    .sort((a, b) => b.seconds - a.seconds);
  if (!named.length) return null;
  return `Step times: ${named.map((s) => `${s.name} ${s.seconds.toFixed(1)} s`).join(', ')}`;
}

function shortStep(name: string): string {
  const text = name
    .replace(/--mount=\S+ /g, '')
    .replace(/: slipway-[A-Za-z0-9-]+-cache && /g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * Whether this docker CLI builds with BuildKit (`DOCKER_BUILDKIT=1`): a 20.10 client does it itself; from 23 the
 * CLI needs its buildx plugin ("BuildKit is enabled but the buildx component is missing or broken"). Answers null
 * when it can, else the sentence saying why not. Runs `docker --version` (no daemon involved) and, for 23+,
 * `docker buildx version`.
 */
export async function buildKitUnavailable(dockerCli: string): Promise<string | null> {
  const version = await run(dockerCli, ['--version']);
  if (version.error) return `the docker CLI ${dockerCli} could not be run (${version.error})`;
  const major = Number(/version (\d+)\./i.exec(version.out)?.[1] ?? NaN);
  if (!Number.isFinite(major)) return `the docker CLI ${dockerCli} did not say its version (${version.out.trim().slice(0, 80) || 'no output'})`;
  if (major < 23) return null;
  const buildx = await run(dockerCli, ['buildx', 'version']);
  return buildx.error === null ? null : `the docker CLI ${dockerCli} is version ${major}, which builds with BuildKit only through its buildx plugin, and that is missing (set SLIPWAY_BUILD_DOCKER_CLI to a 20.10 client such as Debian's /usr/bin/docker, or install docker-buildx)`;
}

/** The engine's cgroup driver (`cgroupfs`, `systemd`), asked through the CLI; null when it does not answer. */
export async function engineCgroupDriver(dockerCli: string, dockerSocket: string): Promise<string | null> {
  const info = await run(dockerCli, ['info', '--format', '{{.CgroupDriver}}'], { DOCKER_HOST: `unix://${dockerSocket}` });
  const driver = info.out.trim();
  return info.error === null && /^[a-z0-9-]+$/.test(driver) ? driver : null;
}

function run(cmd: string, args: string[], env: Record<string, string> = {}): Promise<{ out: string; error: string | null }> {
  return new Promise((resolve) => {
    let out = '';
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: SYSTEM_PATH, HOME: os.homedir(), ...env } });
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ out, error: e.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ out, error: code === 0 ? null : `exit code ${code ?? 'none'}: ${out.trim().split('\n')[0] ?? ''}` });
    });
  });
}
