import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { copyFile, mkdir, readdir, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LABELS, type Logger } from '@slipway/core';
import type { DockerRuntime, ImageBuildOptions } from '../containers/docker.runtime';
import { detect, readSourceTree, type BuildPlan, type Runtimes } from './detect';
import { buildKitUnavailable, buildWithBuildKit, engineCgroupDriver } from './buildkit';
import { applyBuildKitBound, buildKitBound } from './build-cgroup';
import { cacheIdOf, DEFAULT_CACHE_BOUND_MB, type BuildCaches } from './build-cache';
import { CONTEXT, dockerfileFor, dockerignoreFor, installScript, VARIABLES_SECRET, WITH_ENV_SCRIPT, type BaseImages } from './dockerfiles';
import { failureReason } from './failure-reason';
import type { ImageGate } from './image-gate';
import { BuildError, DEFAULT_EXTRACT_LIMITS, extractZip, type ExtractLimits } from './extract';
import { extractTarGz } from './extract-tar';
import { applySettings, narrowToRoot, NO_SETTINGS, withStartCommand, type AppBuildSettings } from './settings';

export interface BuilderOptions {
  docker: DockerRuntime;
  /** Build folders live under `<buildsDir>/<deploymentId>` while a build runs, and are removed after. */
  buildsDir: string;
  images: BaseImages;
  /** The Node.js majors and Python versions builds may choose from (images of each must exist). */
  runtimes: Runtimes;
  /** A PEM bundle trusted during builds (npm, pip, OpenSSL), on top of the base image's own; null for none. */
  extraCaBundle: string | null;
  /** CPUs a build may use (cgroup quota). */
  cpus: number;
  memoryMb: number;
  timeoutMs: number;
  /** Builds at once on this server; others wait for a slot. */
  concurrency: number;
  /** Disk a build may write (MB): its steps' layers above the base image; past it the build is stopped. */
  diskMb: number;
  extractLimits?: ExtractLimits;
  /** Shared with image removal on this server: removal waits while builds run. */
  gate: ImageGate;
  /**
   * `buildkit` (the default): the docker CLI with BuildKit (cache mounts per app, the app's variables as a build
   * secret, only the runtime stage exported; memory and CPU bounded on the engine's BuildKit cgroup for every build
   * slot together, see `buildKitCgroup`; no disk cap). When the CLI cannot build with BuildKit (missing, or 23+
   * without buildx), builds fall back to `classic`, saying why. `classic`: the Engine API's classic builder, in the
   * build's own cgroup limits and disk cap, without variables. docs/decisions/0030.
   */
  engine?: 'classic' | 'buildkit';
  /**
   * BuildKit: where the engine runs build steps (`<root>/…/<parent>/buildkit/<step>`; build-cgroup.ts): the memory
   * and CPU of every build slot together are written there before each build: `{}` is `/sys/fs/cgroup`, parent
   * `docker` (Docker's cgroupfs driver; the agent's default, DEFAULT_BUILD_OPTIONS). Absent or `null`: not written
   * (tests sharing one engine with other test runs).
   */
  buildKitCgroup?: { root?: string; parent?: string } | null;
  /**
   * BuildKit: the engine's records of the apps' cache mounts (build-cache.ts), measured after each build of an app
   * and cleared past its bound; none: caches bounded only by BuildKit's own garbage collection.
   */
  caches?: BuildCaches;
  /** The app's disk size (MB) the bound of its build caches derives from (its project folder's size; none yet: 512). */
  appDiskMb?: (appId: string) => Promise<number | null>;
  /** The docker CLI for BuildKit builds (Debian's 20.10 client). */
  dockerCli?: string;
  /** The engine's socket, for the CLI. */
  dockerSocket?: string;
  logger: Logger;
}

export interface BuildRequest {
  workspaceId: string;
  appId: string;
  deploymentId: string;
  zipPath: string;
  /** A .tar.gz to build instead of the .zip (a GitHub commit's tarball): its one top folder is stripped. */
  tarPath?: string;
  /** The app's build command, start command and root directory, over detection (settings.ts). */
  settings?: AppBuildSettings;
  /** Aborting it stops the build (a cancelled deployment). */
  signal?: AbortSignal;
  /** The app's variables, given to its build command (BuildKit only: as a build secret, never in a layer or the log). */
  variables?: { key: string; value: string; secret: boolean }[];
}

export interface BuildResult {
  imageId: string;
  imageRef: string;
  language: BuildPlan['language'];
}

type Emit = (line: string) => void;

/** The tag of a deployment's image; the same repository as image apps, so rollout, pruning and removal find it. */
export const builtImageRef = (appId: string, deploymentId: string) => `slipway-app/${appId}:${deploymentId}`;

const CPU_PERIOD = 100_000;

/**
 * Builds an uploaded .zip into an image: safe extraction into a fresh build folder, detection, a generated
 * Dockerfile (or the upload's own), then `docker build` (classic builder) under the build's own CPU and memory
 * limits and time limit, at most `concurrency` at once. Every line of output goes to `emit`; docker's
 * "Using cache" lines show a reused dependency layer. The build folder is removed whatever happens.
 */
export class Builder {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly o: BuilderOptions) {}

  async build(req: BuildRequest, emit: Emit): Promise<BuildResult> {
    if (req.signal?.aborted) throw cancelled();
    if (this.running >= this.o.concurrency) {
      emit(
        `Waiting for a build slot (${this.o.concurrency} build${this.o.concurrency === 1 ? '' : 's'} at a time on this server): ` +
          `number ${this.waiting.length + 1} in the queue`,
      );
    }
    await this.acquire(req.signal);
    const dir = path.join(this.o.buildsDir, req.deploymentId);
    try {
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const started = Date.now();
      emit(req.tarPath ? 'Extracting the repository' : 'Extracting the upload');
      const upload = path.join(dir, 'upload');
      const limits = this.o.extractLimits ?? DEFAULT_EXTRACT_LIMITS;
      let files: number;
      let bytes: number;
      if (req.tarPath) {
        const tar = await extractTarGz(req.tarPath, upload, limits);
        ({ files, bytes } = tar);
        if (tar.skippedLinks) emit(`${tar.skippedLinks} symbolic or hard link${tar.skippedLinks === 1 ? ' was' : 's were'} not extracted (links are not accepted in builds)`);
      } else {
        ({ files, bytes } = await extractZip(req.zipPath, upload, limits));
      }
      const app = path.join(dir, CONTEXT.app);
      const top = await singleFolder(upload);
      if (top) {
        emit(req.tarPath ? `Building from inside the archive's top folder ${top}/` : `The .zip holds one folder, ${top}/: building from inside it`);
        await rename(path.join(upload, top), app);
        await rmdir(upload);
      } else {
        await rename(upload, app);
      }
      emit(`Extracted ${files} file${files === 1 ? '' : 's'} (${formatBytes(bytes)}) in ${Date.now() - started} ms`);
      if (req.signal?.aborted) throw cancelled();

      const settings = req.settings ?? NO_SETTINGS;
      await narrowToRoot(app, settings.rootDirectory);
      const applied = applySettings(detect(withStartCommand(await readSourceTree(app), settings), this.o.runtimes), settings);
      const plan = applied.plan;
      for (const r of [...applied.lines, ...plan.reasons]) emit(r);
      const labels = { [LABELS.workspace]: req.workspaceId, [LABELS.app]: req.appId, [LABELS.deployment]: req.deploymentId };
      const buildkit = (await this.engine(emit)) === 'buildkit';
      if (buildkit) this.o.caches?.using(req.appId);
      const variables = req.variables ?? [];
      const generated = dockerfileFor(plan, {
        images: this.o.images,
        extraCa: this.o.extraCaBundle !== null,
        buildkit: buildkit ? { cacheId: cacheIdOf(req.appId), variables: variables.length > 0, variablesDigest: this.digestOf(variables) } : null,
      });
      // One LABEL step in a generated Dockerfile (the build option adds a step per label, each a container).
      const dockerfile = generated === null ? null : `${generated}LABEL ${Object.entries(labels).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ')}\n`;
      let context = app;
      if (dockerfile !== null) {
        context = dir;
        await writeFile(path.join(dir, 'Dockerfile'), dockerfile);
        await writeFile(path.join(dir, '.dockerignore'), dockerignoreFor(plan));
        await mkdir(path.join(dir, CONTEXT.meta));
        if (this.o.extraCaBundle) {
          await copyFile(this.o.extraCaBundle, path.join(dir, CONTEXT.ca));
          emit('The extra CA bundle is trusted during the build');
        }
        if (plan.language === 'python' && plan.requirements !== null) await writeFile(path.join(dir, CONTEXT.requirements), plan.requirements);
        const install = plan.language === 'node' ? installScript(plan) : null;
        if (install !== null) await writeFile(path.join(dir, CONTEXT.install), install);
        if (buildkit && plan.language === 'node' && variables.length) {
          await writeFile(path.join(dir, CONTEXT.withEnv), WITH_ENV_SCRIPT);
          const names = variables.map((v) => (v.secret ? `${v.key} (secret)` : v.key));
          emit(`The app's variables reach the build command as a build secret, never in the image or this log: ${names.join(', ')}`);
        } else if (!buildkit && plan.language === 'node' && variables.length) {
          emit("The app's variables are not given to the build on this server (the classic builder has no build secrets); they reach the running app");
        }
        emit('Generated Dockerfile:');
        for (const line of dockerfile.trimEnd().split('\n')) emit(`  ${line}`);
      }
      const imageRef = builtImageRef(req.appId, req.deploymentId);
      const buildLabels = dockerfile === null ? labels : {};
      // Image removal (teardown, pruning) waits while builds run (image-gate.ts); a build that still meets a parent
      // layer removed under it (by hand, by another tool) runs once more without the cache before it fails.
      const imageId = await this.o.gate.building(async () => {
        if (buildkit) {
          try {
            return await this.buildkitBuild(dir, context, imageRef, req, buildLabels, variables, emit);
          } finally {
            // Success or failure, the app's cache mounts are measured against its disk (a cancelled build too: what it wrote stays).
            await this.boundCaches(req.appId, emit);
          }
        }
        try {
          return await this.dockerBuild(context, imageRef, req, buildLabels, emit, false);
        } catch (e) {
          if (!(e instanceof VanishedParent)) throw e;
          emit(`A cached layer this build reused was removed while it ran (${e.message}): building once more without the cache`);
          return this.dockerBuild(context, imageRef, req, buildLabels, emit, true);
        }
      });
      emit(`Built ${imageRef} (${imageId.slice(0, 19)}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return { imageId, imageRef, language: plan.language };
    } finally {
      await rm(dir, { recursive: true, force: true }).catch((e: Error) => this.o.logger.warn({ dir, err: e.message }, 'could not remove a build folder'));
      await rm(`${dir}.secret`, { recursive: true, force: true }).catch(() => undefined);
      this.release();
    }
  }

  /** The engine builds run with: BuildKit unless told `classic` or the CLI cannot (then classic, and the log says why). */
  private buildKitChecked: Promise<string | null> | null = null;
  private async engine(emit: Emit): Promise<'classic' | 'buildkit'> {
    if ((this.o.engine ?? 'buildkit') === 'classic') return 'classic';
    this.buildKitChecked ??= buildKitUnavailable(this.o.dockerCli ?? '/usr/bin/docker').then((why) => {
      if (why) this.o.logger.warn({ why }, 'builds fall back to the classic builder: BuildKit is not available');
      return why;
    });
    const why = await this.buildKitChecked;
    if (!why) return 'buildkit';
    emit(`slipway warning: BuildKit is not available on this server (${why}): building with the classic builder, without build caches or the app's variables`);
    return 'classic';
  }

  /** The app's BuildKit caches against the bound of its disk (build-cache.ts): cleared past it, one log line either way. */
  private async boundCaches(appId: string, emit: Emit): Promise<void> {
    if (!this.o.caches) return;
    const diskMb = (await this.o.appDiskMb?.(appId).catch(() => null)) ?? DEFAULT_CACHE_BOUND_MB;
    await this.o.caches.bound(appId, diskMb, emit);
  }

  /** A keyed digest of the variables: a changed variable rebuilds the build step, and no value can be read back from it. */
  private readonly digestKey = randomBytes(32);
  private digestOf(variables: { key: string; value: string }[]): string | null {
    if (!variables.length) return null;
    const h = createHmac('sha256', this.digestKey);
    for (const v of [...variables].sort((a, b) => a.key.localeCompare(b.key))) h.update(`${v.key}\0${v.value}\0`);
    return h.digest('hex').slice(0, 32);
  }

  /** BuildKit through the docker CLI; the variables as a secret file outside the context (0600), removed after. */
  private async buildkitBuild(
    dir: string,
    context: string,
    imageRef: string,
    req: BuildRequest,
    labels: Record<string, string>,
    variables: { key: string; value: string }[],
    emit: Emit,
  ): Promise<string> {
    const secrets: Record<string, string> = {};
    const secretDir = `${dir}.secret`;
    await mkdir(secretDir, { recursive: true, mode: 0o700 });
    if (variables.length) {
      const file = path.join(secretDir, 'variables.json');
      await writeFile(file, JSON.stringify(Object.fromEntries(variables.map((v) => [v.key, v.value]))), { mode: 0o600 });
      secrets[VARIABLES_SECRET] = file;
    }
    emit(`docker build with BuildKit (${await this.boundBuildKit()}; at most ${Math.round(this.o.timeoutMs / 1000)} s)`);
    return buildWithBuildKit(
      {
        dockerCli: this.o.dockerCli ?? '/usr/bin/docker',
        dockerSocket: this.o.dockerSocket ?? '/var/run/docker.sock',
        context,
        imageRef,
        labels,
        secrets,
        iidfile: path.join(secretDir, 'image-id'),
        nocache: false,
        timeoutMs: this.o.timeoutMs,
        memoryMb: this.o.memoryMb,
        signal: req.signal,
      },
      emit,
    );
  }

  private cgroupDriver: Promise<string | null> | null = null;

  /** Memory and CPU of the build slots together on the engine's BuildKit cgroup (build-cgroup.ts); the log's words for it. */
  private async boundBuildKit(): Promise<string> {
    const { cpus, memoryMb, concurrency } = this.o;
    const limits = concurrency > 1 ? `${cpus * concurrency} CPU and ${memoryMb * concurrency} MB shared by this server's ${concurrency} build slots` : `${cpus} CPU and ${memoryMb} MB`;
    if (!this.o.buildKitCgroup) return `${limits} are not enforced on this server's BuildKit`;
    this.cgroupDriver ??= engineCgroupDriver(this.o.dockerCli ?? '/usr/bin/docker', this.o.dockerSocket ?? '/var/run/docker.sock');
    const driver = await this.cgroupDriver;
    const why = await applyBuildKitBound(buildKitBound({ cpus, memoryMb, concurrency }), { ...this.o.buildKitCgroup, driver });
    if (why === null) return limits;
    this.o.logger.warn({ why }, 'the memory and CPU of BuildKit builds could not be bounded');
    return `${limits} are not enforced: ${why}`;
  }

  private async dockerBuild(context: string, imageRef: string, req: BuildRequest, labels: Record<string, string>, emit: Emit, nocache: boolean): Promise<string> {
    const abort = new AbortController();
    let why: 'timeout' | 'cancelled' | 'disk' | null = null;
    const onCancel = () => {
      why ??= 'cancelled';
      abort.abort();
    };
    req.signal?.addEventListener('abort', onCancel);
    const timer = setTimeout(() => {
      why ??= 'timeout';
      abort.abort();
    }, this.o.timeoutMs);
    const tar = spawn('tar', ['-c', '-C', context, '--owner=0', '--group=0', '--numeric-owner', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let tarError = '';
    tar.stderr.on('data', (d: Buffer) => (tarError += d.toString()));
    const memory = this.o.memoryMb * 1024 * 1024;
    // The disk cap: what the build's steps wrote, i.e. the layers above the base image (the size of the last
    // step's image less the FROM image's) plus what the running step's container has written so far. Docker's
    // overlay2 on ext4 has no size option, so this is measured (every second, and after each step), not enforced
    // by the kernel: a step writing fast passes the cap by at most a second of writes before it is stopped.
    const disk = { base: -1, layers: 0, step: null as string | null, written: 0 };
    const checkDisk = async () => {
      const total = disk.layers + (disk.step ? await this.o.docker.containerWrittenBytes(disk.step) : 0);
      disk.written = Math.max(disk.written, total);
      if (total > this.o.diskMb * 1024 * 1024 && !why) {
        why = 'disk';
        abort.abort();
      }
    };
    // The current step and its output: a failure's reason is the error the tool printed, never the Dockerfile line.
    let step = '';
    let stepLines: string[] = [];
    const onLine = (line: string) => {
      const stepLine = /^Step \d+\/\d+ : (.*)$/.exec(line);
      if (stepLine) {
        step = stepLine[1]!;
        stepLines = [];
      } else {
        stepLines.push(line);
        if (stepLines.length > 400) stepLines.splice(0, stepLines.length - 200);
      }
      const running = /^ ---> Running in ([0-9a-f]{12,64})$/.exec(line);
      const produced = /^ ---> ([0-9a-f]{12,64})$/.exec(line);
      if (running) disk.step = running[1]!;
      if (produced) {
        disk.step = null;
        void this.o.docker.inspectImage(produced[1]!).then((img) => {
          if (!img) return;
          if (disk.base < 0) disk.base = img.Size;
          disk.layers = Math.max(disk.layers, img.Size - disk.base);
          return checkDisk();
        });
      }
      emit(line);
    };
    const poll = setInterval(() => void checkDisk(), 1000);
    const lines = new LineSplitter(onLine);
    let failure: string | null = null;
    try {
      emit(`docker build (${this.o.cpus} CPU, ${this.o.memoryMb} MB, ${this.o.diskMb} MB of disk, at most ${Math.round(this.o.timeoutMs / 1000)} s)`);
      await this.o.docker.buildImage(
        tar.stdout,
        {
          t: imageRef,
          labels,
          version: '1',
          rm: true,
          forcerm: true,
          pull: false,
          nocache,
          memory,
          memswap: memory,
          cpuperiod: CPU_PERIOD,
          cpuquota: Math.round(this.o.cpus * CPU_PERIOD),
          abortSignal: abort.signal,
        } as ImageBuildOptions,
        (e) => {
          if (e.stream) lines.push(e.stream);
          else if (e.status) lines.push(`${e.status}\n`);
          if (e.error) failure ??= e.error;
        },
      );
    } catch (e) {
      if (why === 'cancelled') throw cancelled();
      if (why === 'disk') throw diskExceeded(this.o.diskMb, disk.written);
      if (why === 'timeout') throw new BuildError(`The build took longer than ${Math.round(this.o.timeoutMs / 1000)} s and was stopped`);
      if ((e as NodeJS.ErrnoException).code === 'ECONNREFUSED' || (e as NodeJS.ErrnoException).code === 'ENOENT') throw e;
      throw new BuildError(`The build failed: ${(e as Error).message}${tarError ? ` (${tarError.trim()})` : ''}`);
    } finally {
      clearTimeout(timer);
      clearInterval(poll);
      req.signal?.removeEventListener('abort', onCancel);
      lines.end();
      tar.kill();
    }
    if (why === 'disk') throw diskExceeded(this.o.diskMb, disk.written);
    if (failure) {
      const text = String(failure).trim();
      if (/unknown parent image ID|failed to set parent/i.test(text)) throw new VanishedParent(text);
      throw new BuildError(failureReason(step, stepLines, text, this.o.memoryMb));
    }
    const id = await this.o.docker.imageId(imageRef);
    if (!id) throw new BuildError('The build finished without an image');
    return id;
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (this.running < this.o.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener('abort', onAbort);
        this.running++;
        resolve();
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(go);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(cancelled());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(go);
    });
  }

  private release(): void {
    this.running--;
    this.waiting.shift()?.();
  }
}

/** The engine lost a parent layer the build had reused (removed while the build ran). */
class VanishedParent extends Error {}

function diskExceeded(capMb: number, writtenBytes: number): BuildError {
  return new BuildError(`The build wrote more than ${capMb} MB to disk (${Math.round(writtenBytes / 1024 / 1024)} MB when it was stopped), this server's limit for one build`);
}

function cancelled(): BuildError {
  return new BuildError('The build was cancelled');
}

/** The one folder an archive holds when it holds nothing else (zips of a folder, GitHub downloads). */
async function singleFolder(dir: string): Promise<string | null> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries.length === 1 && entries[0]!.isDirectory() ? entries[0]!.name : null;
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** Docker's output arrives in chunks that do not respect lines; this emits whole lines, without ANSI escapes. */
class LineSplitter {
  private rest = '';
  constructor(private readonly emit: Emit) {}
  push(text: string): void {
    const parts = (this.rest + text).split(/\r?\n|\r/);
    this.rest = parts.pop() ?? '';
    for (const p of parts) this.out(p);
  }
  end(): void {
    if (this.rest) this.out(this.rest);
    this.rest = '';
  }
  private out(line: string): void {
    // eslint-disable-next-line no-control-regex
    const clean = line.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').trimEnd();
    if (clean) this.emit(clean);
  }
}
