import { LABELS, type ContainerFilter, type ContainerExitEvent, type ManagedContainer } from '@slipway/core';
import Docker from 'dockerode';
import type { Readable } from 'node:stream';
import { ENGINE_ACTIONS, EngineEventTranslator, type EngineEvent } from './container-events';
import { ContainerIntents } from './intents';

const MANAGED = LABELS.workspace;

const statusOf = (e: unknown) => (e as { statusCode?: number }).statusCode;
/** A call whose answer 304 (already started, already stopped) is the state wanted. */
const unless304 = (e: unknown) => {
  if (statusOf(e) !== 304) throw e;
};

/** One line of `docker pull` / `docker build` progress as the engine streams it. */
export interface ProgressEvent {
  id?: string;
  status?: string;
  stream?: string;
  error?: string;
}

/** Options of `docker build`; aborting `abortSignal` stops the running step. */
export type ImageBuildOptions = Docker.ImageBuildOptions & { abortSignal: AbortSignal };

/** A workspace network as the engine reports it. */
export interface ManagedNetwork {
  id: string;
  name: string;
  labels: Record<string, string>;
  subnets: string[];
  createdAtMs: number;
  /** Ids of the containers attached (filled by `networkContainers`, empty in listings). */
  containers: string[];
}

/**
 * The agent's only door to the Docker engine: nothing else holds a dockerode client. Every object Slipway makes
 * carries `slipway.workspace` (and app/deployment/database labels as they apply) and `slipway.platform` = this
 * platform's id; listing and removal of managed objects never reach past this platform's own. Errors keep the
 * engine's `statusCode` (404, 409…) for the callers that care.
 */
export class DockerRuntime {
  private readonly docker: Docker;
  private readonly mine: string;
  /** The agent's own stops, restarts, removals and starts in progress: their events are the platform's doing. */
  readonly intents = new ContainerIntents();

  constructor(
    socketPath: string,
    /** This platform's identity (config SLIPWAY_PLATFORM_ID, or derived from the enrollment's CA). */
    readonly platformId: string,
  ) {
    this.docker = new Docker({ socketPath });
    this.mine = `${LABELS.platform}=${platformId}`;
  }

  /** Labels of an object this platform made, or made before objects carried a platform label. */
  isMine(labels: Record<string, string> | undefined): boolean {
    const platform = labels?.[LABELS.platform];
    return platform === undefined || platform === this.platformId;
  }

  async ping(): Promise<void> {
    await this.docker.ping();
  }

  // --------------------------------------------------------------------------------------------- containers

  async listManaged(filter: ContainerFilter = {}): Promise<ManagedContainer[]> {
    const label: string[] = [MANAGED, this.mine];
    if (filter.workspaceId) label.push(`${LABELS.workspace}=${filter.workspaceId}`);
    if (filter.appId) label.push(`${LABELS.app}=${filter.appId}`);
    if (filter.deploymentId) label.push(`${LABELS.deployment}=${filter.deploymentId}`);
    if (filter.databaseId) label.push(`${LABELS.database}=${filter.databaseId}`);
    const list = await this.docker.listContainers({ all: true, filters: { label } });
    return list.map((c) => ({
      id: c.Id,
      name: (c.Names[0] ?? '').replace(/^\//, ''),
      image: c.Image,
      state: c.State,
      labels: c.Labels ?? {},
      createdAtMs: c.Created * 1000,
    }));
  }

  /** Removes (forcefully) each container that exists and carries this platform's label; skips the rest. */
  async removeManaged(ids: string[]): Promise<{ removed: string[]; skipped: string[] }> {
    const removed: string[] = [];
    const skipped: string[] = [];
    for (const id of ids) {
      const container = this.docker.getContainer(id);
      try {
        const info = await container.inspect();
        if (!info.Config.Labels?.[MANAGED] || info.Config.Labels[LABELS.platform] !== this.platformId) {
          skipped.push(id);
          continue;
        }
        await this.intents.around(id, 'remove', () => container.remove({ force: true, v: false }));
        removed.push(id);
      } catch (e) {
        if (statusOf(e) === 404) skipped.push(id);
        else throw e;
      }
    }
    return { removed, skipped };
  }

  /** Containers carrying every `key=value` of `labels`, stopped ones included. */
  containersWith(labels: string[]): Promise<Docker.ContainerInfo[]> {
    return this.docker.listContainers({ all: true, filters: { label: labels } });
  }

  /** This platform's container of exactly that name, or null. */
  async containerByName(name: string): Promise<Docker.ContainerInfo | null> {
    const list = await this.docker.listContainers({ all: true, filters: { name: [name] } });
    return list.find((c) => c.Names.includes(`/${name}`) && c.Labels?.[LABELS.platform] === this.platformId) ?? null;
  }

  async createContainer(options: Docker.ContainerCreateOptions): Promise<string> {
    return (await this.docker.createContainer(options)).id;
  }

  async startContainer(id: string): Promise<void> {
    await this.intents.around(id, 'start', () => this.docker.getContainer(id).start().catch(unless304));
  }

  /** SIGTERM, then SIGKILL after the grace period (whole seconds, as the engine counts them). */
  async stopContainer(id: string, graceMs: number): Promise<void> {
    await this.intents.around(id, 'stop', () => this.docker.getContainer(id).stop({ t: Math.ceil(graceMs / 1000) }).catch(unless304));
  }

  async restartContainer(id: string, graceMs: number): Promise<void> {
    await this.intents.around(id, 'restart', () => this.docker.getContainer(id).restart({ t: Math.ceil(graceMs / 1000) }));
  }

  async removeContainer(id: string): Promise<void> {
    await this.intents.around(id, 'remove', () => this.docker.getContainer(id).remove({ force: true }));
  }

  /** Bytes a container wrote to its own layer (the engine walks it: not for hot paths); 0 once it is gone. */
  async containerWrittenBytes(id: string): Promise<number> {
    try {
      const info = (await this.docker.getContainer(id).inspect({ size: true } as Docker.ContainerInspectOptions)) as Docker.ContainerInspectInfo & { SizeRw?: number };
      return info.SizeRw ?? 0;
    } catch {
      return 0;
    }
  }

  containerState(id: string): Promise<Docker.ContainerInspectInfo['State']> {
    return this.docker.getContainer(id).inspect().then((i) => i.State);
  }

  inspectContainer(id: string): Promise<Docker.ContainerInspectInfo> {
    return this.docker.getContainer(id).inspect();
  }

  /** The CPU limit of an existing container, changed in place when it differs (`docker update --cpus`); true if changed. */
  async setCpuLimit(id: string, cpuMillis: number): Promise<boolean> {
    const container = this.docker.getContainer(id);
    const nanoCpus = cpuMillis * 1_000_000;
    if ((await container.inspect()).HostConfig.NanoCpus === nanoCpus) return false;
    await container.update({ NanoCpus: nanoCpus });
    return true;
  }

  /** Changes the restart policy of an existing container (`docker update --restart`). */
  async setRestartPolicy(id: string, policy: Docker.HostRestartPolicy): Promise<void> {
    await this.docker.getContainer(id).update({ RestartPolicy: policy });
  }

  /**
   * Events of managed containers as the engine reports them (die, oom, destroy, start), each with its cause: the
   * agent's own calls through this class are marked (ContainerIntents) while they run. `onClosed` is called once when
   * the engine's stream ends for any reason other than the returned stop (the engine restarted or went away):
   * subscribe again.
   */
  async watchEvents(onEvent: (e: ContainerExitEvent) => void, onClosed: (err: Error | null) => void = () => undefined): Promise<() => void> {
    const stream = (await this.docker.getEvents({
      filters: { type: ['container'], event: ENGINE_ACTIONS, label: [MANAGED, this.mine] },
    })) as unknown as Readable;
    const translator = new EngineEventTranslator(this.intents);
    let buffer = '';
    let stopped = false;
    let closed = false;
    const close = (err: Error | null) => {
      if (closed) return;
      closed = true;
      if (!stopped) onClosed(err);
    };
    stream.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        if (!line) continue;
        let e: EngineEvent;
        try {
          e = JSON.parse(line) as EngineEvent;
        } catch {
          continue;
        }
        const event = translator.translate(e);
        if (event) onEvent(event);
      }
    });
    stream.on('error', (err: Error) => close(err));
    stream.on('end', () => close(null));
    stream.on('close', () => close(null));
    return () => {
      stopped = true;
      stream.destroy();
    };
  }

  /** stdout/stderr of a managed container, demultiplexed, chunk by chunk. */
  async logs(containerId: string, options: { tail: number; follow: boolean }, onChunk: (stream: 'stdout' | 'stderr', data: Buffer) => void): Promise<{ done: Promise<void>; stop(): void }> {
    const container = this.docker.getContainer(containerId);
    const info = await container.inspect();
    if (!info.Config.Labels?.[MANAGED]) throw Object.assign(new Error('not a managed container'), { statusCode: 404 });
    const out = (await container.logs({ stdout: true, stderr: true, follow: options.follow, tail: options.tail || 'all' } as Docker.ContainerLogsOptions & { follow: true })) as unknown as Readable | Buffer;
    const frames = new LogFrames(onChunk);
    // Without follow the engine answers the whole log at once (dockerode hands back a Buffer).
    if (Buffer.isBuffer(out)) {
      frames.push(out);
      return { done: Promise.resolve(), stop: () => undefined };
    }
    const raw = out;
    raw.on('data', (chunk: Buffer) => frames.push(chunk));
    const done = new Promise<void>((resolve, reject) => {
      raw.on('end', resolve);
      raw.on('close', resolve);
      raw.on('error', reject);
    });
    return { done, stop: () => raw.destroy() };
  }

  /**
   * Runs a command inside a running container (argv, no shell of ours), with its environment and stdin: secrets
   * travel there, never on a command line. Resolves with the exit code and the output (each capped at 64 KB); the
   * command is given up after `timeoutMs` (its exit code is then -1).
   */
  async exec(containerId: string, o: { cmd: string[]; env?: Record<string, string>; stdin?: string; user?: string; timeoutMs?: number }): Promise<{ exitCode: number; stdout: string; stderr: string }> {
    const exec = await this.docker.getContainer(containerId).exec({
      Cmd: o.cmd,
      Env: Object.entries(o.env ?? {}).map(([k, v]) => `${k}=${v}`),
      User: o.user,
      AttachStdin: o.stdin !== undefined,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
    });
    const stream = (await exec.start({ hijack: true, stdin: o.stdin !== undefined })) as unknown as NodeJS.ReadWriteStream & Readable;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const cap = (list: Buffer[]) => ({ write: (b: Buffer) => list.reduce((n, x) => n + x.length, 0) < 65_536 && list.push(b) }) as unknown as NodeJS.WritableStream;
    this.docker.modem.demuxStream(stream, cap(out), cap(err));
    const ended = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), o.timeoutMs ?? 30_000);
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      stream.on('end', done);
      stream.on('close', done);
      stream.on('error', done);
    });
    if (o.stdin !== undefined) stream.end(o.stdin);
    const finished = await ended;
    stream.destroy();
    const text = (list: Buffer[]) => Buffer.concat(list).toString('utf8');
    if (!finished) return { exitCode: -1, stdout: text(out), stderr: `${text(err)}\n(gave up after ${o.timeoutMs ?? 30_000} ms)` };
    // The stream can end a moment before the engine records the exit.
    for (let i = 0; ; i++) {
      const info = await exec.inspect();
      if (!info.Running || i >= 40) return { exitCode: info.ExitCode ?? -1, stdout: text(out), stderr: text(err) };
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /**
   * An exec whose bytes the caller streams itself (exec-stream.ts: dumps to a file, loads from one): the raw
   * multiplexed duplex Docker hijacks for it and a way to read its exit code once its output ended.
   */
  async openExec(containerId: string, o: { cmd: string[]; env?: Record<string, string>; user?: string; stdin: boolean }): Promise<{ stream: NodeJS.ReadWriteStream & Readable; exitCode(): Promise<number> }> {
    const exec = await this.docker.getContainer(containerId).exec({
      Cmd: o.cmd,
      Env: Object.entries(o.env ?? {}).map(([k, v]) => `${k}=${v}`),
      User: o.user,
      AttachStdin: o.stdin,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
    });
    const stream = (await exec.start({ hijack: true, stdin: o.stdin })) as unknown as NodeJS.ReadWriteStream & Readable;
    return {
      stream,
      exitCode: async () => {
        for (let i = 0; ; i++) {
          const info = await exec.inspect();
          if (!info.Running || i >= 200) return info.Running ? -1 : (info.ExitCode ?? -1);
          await new Promise((r) => setTimeout(r, 25));
        }
      },
    };
  }

  /** The last `n` lines of a container's output (stdout and stderr together); none when it cannot be read. */
  async lastLines(containerId: string, n: number): Promise<string[]> {
    try {
      const buf = (await this.docker.getContainer(containerId).logs({ stdout: true, stderr: true, tail: n, follow: false })) as unknown as Buffer;
      const parts: Buffer[] = [];
      new LogFrames((_stream, data) => parts.push(data)).push(buf);
      return Buffer.concat(parts).toString('utf8').split('\n').filter((l) => l.length > 0).slice(-n);
    } catch {
      return [];
    }
  }

  // ------------------------------------------------------------------------------------------------- images

  /** The image's id, or null when the engine has no image by that reference. */
  async imageId(ref: string): Promise<string | null> {
    return (await this.inspectImage(ref))?.Id ?? null;
  }

  async inspectImage(ref: string): Promise<Docker.ImageInspectInfo | null> {
    try {
      return await this.docker.getImage(ref).inspect();
    } catch (e) {
      if (statusOf(e) === 404) return null;
      throw e;
    }
  }

  async pullImage(ref: string, onProgress: (e: ProgressEvent) => void): Promise<void> {
    await this.follow((await this.docker.pull(ref)) as Readable, onProgress);
  }

  /** `docker build` (classic builder) of a tar context; aborting `options.abortSignal` stops the running step. */
  async buildImage(context: Readable, options: ImageBuildOptions, onProgress: (e: ProgressEvent) => void): Promise<void> {
    const signal = options.abortSignal; // dockerode takes it out of the options
    const stream = (await this.docker.buildImage(context as unknown as NodeJS.ReadableStream, options)) as Readable;
    const aborted = new Promise<never>((_resolve, reject) => {
      const onAbort = () => {
        stream.destroy();
        reject(new Error('aborted'));
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    await Promise.race([this.follow(stream, onProgress, false), aborted]);
  }

  async tagImage(id: string, repo: string, tag: string): Promise<void> {
    await this.docker.getImage(id).tag({ repo, tag });
  }

  /** `docker save` of the tags as one tar stream (issue 32: a workspace's images moved to another server). */
  async saveImages(refs: string[]): Promise<Readable> {
    // dockerode has getImages (GET /images/get?names=…) but its types do not declare it.
    const docker = this.docker as unknown as { getImages(opts: { names: string[] }): Promise<Readable> };
    return docker.getImages({ names: refs });
  }

  /** `docker load` of a tar file; answers the tags it held ("Loaded image: repo:tag" lines). */
  async loadImages(tar: Readable): Promise<string[]> {
    const loaded: string[] = [];
    const failed: string[] = [];
    await this.follow((await this.docker.loadImage(tar)) as unknown as Readable, (e) => {
      const text = (e as { stream?: string }).stream ?? '';
      const m = /Loaded image: (\S+)/.exec(text);
      if (m) loaded.push(m[1]!);
      if (e.error) failed.push(e.error);
    });
    if (failed.length) throw new Error(`docker load failed: ${failed.join('; ')}`);
    return loaded;
  }

  /** Removes an image reference; false when it could not be (in use, gone). */
  removeImage(ref: string): Promise<boolean> {
    return this.docker
      .getImage(ref)
      .remove()
      .then(
        () => true,
        () => false,
      );
  }

  /** Every `<repository>:<tag>` the engine holds for the repositories (one listing, however many). */
  async imageTags(repository: string | string[]): Promise<string[]> {
    const repos = Array.isArray(repository) ? repository : [repository];
    if (repos.length === 0) return [];
    const images = await this.docker.listImages({ filters: { reference: repos.map((r) => `${r}:*`) } });
    return images.flatMap((img) => (img.RepoTags ?? []).filter((t) => repos.some((r) => t.startsWith(`${r}:`))));
  }

  /**
   * A tar stream of `path` inside the image, read from a container that is created (never started) for it and
   * removed after `use`; null when the image has nothing at that path.
   */
  async readFromImage<T>(imageRef: string, path: string, labels: Record<string, string>, use: (tar: Readable | null) => Promise<T>): Promise<T> {
    const tmp = await this.docker.createContainer({ Image: imageRef, Entrypoint: ['/nonexistent'], Labels: labels });
    try {
      const tar = await tmp.getArchive({ path }).then(
        (s) => s as unknown as Readable,
        (e: unknown) => {
          if (statusOf(e) === 404) return null;
          throw e;
        },
      );
      return await use(tar);
    } finally {
      await this.intents.around(tmp.id, 'remove', () => tmp.remove({ force: true })).catch(() => undefined);
    }
  }

  // ----------------------------------------------------------------------------------------------- networks

  /** Networks carrying every `key=value` of `labels`, and (when `name` is given) those named exactly `name`. */
  async networks(query: { labels?: string[]; name?: string }): Promise<ManagedNetwork[]> {
    const found = new Map<string, Docker.NetworkInspectInfo>();
    if (query.labels) for (const n of await this.docker.listNetworks({ filters: { label: query.labels } })) found.set(n.Id, n);
    // The engine's name filter matches substrings: keep exact names only.
    if (query.name) for (const n of await this.docker.listNetworks({ filters: { name: [query.name] } })) if (n.Name === query.name) found.set(n.Id, n);
    return [...found.values()].map(toNetwork);
  }

  /** Every IPv4 subnet any network of the engine holds (this platform's or not). */
  async takenSubnets(): Promise<string[]> {
    const all = await this.docker.listNetworks();
    return all.flatMap((n) => (n.IPAM?.Config ?? []).map((c) => c.Subnet ?? '').filter((s) => s.includes('.')));
  }

  /** The network with the containers attached to it; null when it is gone. */
  async networkContainers(id: string): Promise<string[] | null> {
    try {
      const info = (await this.docker.getNetwork(id).inspect()) as Docker.NetworkInspectInfo;
      return Object.keys(info.Containers ?? {});
    } catch (e) {
      if (statusOf(e) === 404) return null;
      throw e;
    }
  }

  /** Whether a container runs, and the networks it is attached to by name and id (a container never started has no id for them yet). */
  async containerNetworks(containerId: string): Promise<{ running: boolean; networks: { name: string; networkId: string }[] }> {
    try {
      const info = await this.docker.getContainer(containerId).inspect();
      return {
        running: info.State.Running,
        networks: Object.entries(info.NetworkSettings?.Networks ?? {}).map(([name, n]) => ({ name, networkId: n.NetworkID ?? '' })),
      };
    } catch (e) {
      if (statusOf(e) === 404) return { running: false, networks: [] };
      throw e;
    }
  }

  /** A bridge network on a fixed subnet; returns its id. */
  async createNetwork(o: { name: string; labels: Record<string, string>; subnet: string; gateway: string }): Promise<string> {
    const network = await this.docker.createNetwork({
      Name: o.name,
      Driver: 'bridge',
      CheckDuplicate: true,
      Labels: o.labels,
      IPAM: { Driver: 'default', Config: [{ Subnet: o.subnet, Gateway: o.gateway }] },
    });
    return network.id;
  }

  /** Attaches a container to a network; already attached is no error. */
  async connectNetwork(networkId: string, containerId: string): Promise<void> {
    await this.docker
      .getNetwork(networkId)
      .connect({ Container: containerId })
      .catch((e: unknown) => {
        if (statusOf(e) === 403 && /already exists/i.test((e as Error).message)) return;
        throw e;
      });
  }

  /** Detaches a container from a network; not attached (or gone) is no error. */
  async disconnectNetwork(networkId: string, containerId: string): Promise<void> {
    await this.docker
      .getNetwork(networkId)
      .disconnect({ Container: containerId, Force: true })
      .catch((e: unknown) => {
        if (statusOf(e) !== 404 && !/is not connected/i.test((e as Error).message)) throw e;
      });
  }

  /** Removes a network; one already gone is no error. */
  async removeNetwork(id: string): Promise<void> {
    await this.docker
      .getNetwork(id)
      .remove()
      .catch((e: unknown) => {
        if (statusOf(e) !== 404) throw e;
      });
  }

  /** Follows a progress stream to its end; an `error` event in it fails it unless `failOnError` is false. */
  private follow(stream: Readable, onProgress: (e: ProgressEvent) => void, failOnError = true): Promise<void> {
    return new Promise<void>((resolve, reject) =>
      this.docker.modem.followProgress(
        stream,
        (err: Error | null, out: ProgressEvent[]) => {
          const failed = failOnError ? out?.find((o) => o.error) : undefined;
          if (err || failed) reject(err ?? new Error(failed!.error));
          else resolve();
        },
        onProgress,
      ),
    );
  }
}

const toNetwork = (n: Docker.NetworkInspectInfo): ManagedNetwork => ({
  id: n.Id,
  name: n.Name,
  labels: n.Labels ?? {},
  subnets: (n.IPAM?.Config ?? []).map((c) => c.Subnet ?? '').filter(Boolean),
  createdAtMs: Date.parse(n.Created) || 0,
  containers: Object.keys(n.Containers ?? {}),
});

/** Docker's multiplexed log frames: 1 byte stream, 3 zero bytes, 4-byte big-endian length, payload. */
class LogFrames {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly onChunk: (stream: 'stdout' | 'stderr', data: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    while (this.pending.length >= 8) {
      const size = this.pending.readUInt32BE(4);
      if (this.pending.length < 8 + size) break;
      this.onChunk(this.pending[0] === 2 ? 'stderr' : 'stdout', this.pending.subarray(8, 8 + size));
      this.pending = this.pending.subarray(8 + size);
    }
  }
}
