import { LABELS, type ContainerFilter, type ContainerExitEvent, type ManagedContainer } from '@slipway/core';
import Docker from 'dockerode';
import type { Readable } from 'node:stream';

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

/**
 * The agent's only door to the Docker engine: nothing else holds a dockerode client. Every object Slipway makes
 * carries `slipway.workspace` (and app/deployment/database labels as they apply); listing and removal of managed
 * containers never reach past them. Errors keep the engine's `statusCode` (404, 409…) for the callers that care.
 */
export class DockerRuntime {
  private readonly docker: Docker;

  constructor(socketPath: string) {
    this.docker = new Docker({ socketPath });
  }

  async ping(): Promise<void> {
    await this.docker.ping();
  }

  // --------------------------------------------------------------------------------------------- containers

  async listManaged(filter: ContainerFilter = {}): Promise<ManagedContainer[]> {
    const label: string[] = [MANAGED];
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

  /** Removes (forcefully) each container that exists and carries the slipway label; skips the rest. */
  async removeManaged(ids: string[]): Promise<{ removed: string[]; skipped: string[] }> {
    const removed: string[] = [];
    const skipped: string[] = [];
    for (const id of ids) {
      const container = this.docker.getContainer(id);
      try {
        const info = await container.inspect();
        if (!info.Config.Labels?.[MANAGED]) {
          skipped.push(id);
          continue;
        }
        await container.remove({ force: true, v: false });
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

  async createContainer(options: Docker.ContainerCreateOptions): Promise<string> {
    return (await this.docker.createContainer(options)).id;
  }

  async startContainer(id: string): Promise<void> {
    await this.docker.getContainer(id).start().catch(unless304);
  }

  /** SIGTERM, then SIGKILL after the grace period (whole seconds, as the engine counts them). */
  async stopContainer(id: string, graceMs: number): Promise<void> {
    await this.docker.getContainer(id).stop({ t: Math.ceil(graceMs / 1000) }).catch(unless304);
  }

  async restartContainer(id: string, graceMs: number): Promise<void> {
    await this.docker.getContainer(id).restart({ t: Math.ceil(graceMs / 1000) });
  }

  async removeContainer(id: string): Promise<void> {
    await this.docker.getContainer(id).remove({ force: true });
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

  /** Changes the restart policy of an existing container (`docker update --restart`). */
  async setRestartPolicy(id: string, policy: Docker.HostRestartPolicy): Promise<void> {
    await this.docker.getContainer(id).update({ RestartPolicy: policy });
  }

  /** Exits (die, oom) of managed containers as the engine reports them. */
  async watchExits(onEvent: (e: ContainerExitEvent) => void): Promise<() => void> {
    const stream = (await this.docker.getEvents({
      filters: { type: ['container'], event: ['die', 'oom'], label: [MANAGED] },
    })) as unknown as Readable;
    let buffer = '';
    stream.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        if (!line) continue;
        const e = JSON.parse(line) as { Action: string; Actor: { ID: string; Attributes: Record<string, string> }; timeNano: number };
        const { exitCode, ...attributes } = e.Actor.Attributes;
        const labels = Object.fromEntries(Object.entries(attributes).filter(([k]) => k.startsWith('slipway.')));
        onEvent({ containerId: e.Actor.ID, action: e.Action, exitCode: Number(exitCode ?? -1), labels, atMs: e.timeNano / 1e6 });
      }
    });
    stream.on('error', () => undefined);
    return () => stream.destroy();
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

  /** Every `<repository>:<tag>` the engine holds for the repository. */
  async imageTags(repository: string): Promise<string[]> {
    const images = await this.docker.listImages({ filters: { reference: [`${repository}:*`] } });
    return images.flatMap((img) => (img.RepoTags ?? []).filter((t) => t.startsWith(`${repository}:`)));
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
      await tmp.remove({ force: true }).catch(() => undefined);
    }
  }

  // ----------------------------------------------------------------------------------------------- networks

  /** Makes a bridge network unless it exists (a concurrent maker winning is fine). */
  async ensureNetwork(name: string, labels: Record<string, string>): Promise<void> {
    try {
      await this.docker.getNetwork(name).inspect();
    } catch (e) {
      if (statusOf(e) !== 404) throw e;
      await this.docker.createNetwork({ Name: name, Driver: 'bridge', CheckDuplicate: true, Labels: labels }).catch((err: unknown) => {
        if (statusOf(err) !== 409) throw err;
      });
    }
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
