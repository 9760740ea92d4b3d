import { LABELS, type ContainerFilter, type ContainerExitEvent, type ManagedContainer } from '@slipway/core';
import Docker from 'dockerode';
import type { Readable } from 'node:stream';

const MANAGED = LABELS.workspace;

/**
 * The agent's only door to the Docker engine. Every object Slipway makes carries `slipway.workspace`
 * (and app/deployment/database labels as they apply); listing and removal never reach past them.
 */
export class DockerRuntime {
  readonly docker: Docker;

  constructor(socketPath: string) {
    this.docker = new Docker({ socketPath });
  }

  async ping(): Promise<void> {
    await this.docker.ping();
  }

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
        if ((e as { statusCode?: number }).statusCode === 404) skipped.push(id);
        else throw e;
      }
    }
    return { removed, skipped };
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
    let pending = Buffer.alloc(0);
    const take = (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      // Docker's multiplexed frames: 1 byte stream, 3 zero bytes, 4-byte big-endian length, payload.
      while (pending.length >= 8) {
        const size = pending.readUInt32BE(4);
        if (pending.length < 8 + size) break;
        onChunk(pending[0] === 2 ? 'stderr' : 'stdout', pending.subarray(8, 8 + size));
        pending = pending.subarray(8 + size);
      }
    };
    // Without follow the engine answers the whole log at once (dockerode hands back a Buffer).
    if (Buffer.isBuffer(out)) {
      take(out);
      return { done: Promise.resolve(), stop: () => undefined };
    }
    const raw = out;
    raw.on('data', take);
    const done = new Promise<void>((resolve, reject) => {
      raw.on('end', resolve);
      raw.on('close', resolve);
      raw.on('error', reject);
    });
    return { done, stop: () => raw.destroy() };
  }
}
