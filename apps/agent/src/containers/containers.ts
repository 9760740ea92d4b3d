import { AppError, LABELS, type ContainerExitEvent, type Logger } from '@slipway/core';
import type { DockerRuntime } from './docker.runtime';
import { answers, type Readiness } from './readiness';
import type { WorkspaceNetworks } from './networks';
import { createOptions, type ContainerSpec } from './spec';

const LAST_LINES = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One lifecycle for every workload's containers, in the spirit of Nomad's task drivers: a workload (apps today,
 * managed databases next) describes its container as a ContainerSpec and a Readiness, and this layer does the rest
 * the same way for all of them — network, labels, limits and hardening (spec.ts), start, readiness, stop with a
 * grace period, removal, logs and exit events. Only DockerRuntime talks to the engine.
 */
export class Containers {
  constructor(
    private readonly docker: DockerRuntime,
    readonly networks: WorkspaceNetworks,
    private readonly logger: Logger,
  ) {}

  /**
   * Creates the container on its workspace's one network (made or healed on demand, unless the caller did it) with the
   * layer's hardening, and starts it. A container that cannot start is removed.
   */
  async launch(spec: ContainerSpec, networkId?: string): Promise<string> {
    const network = networkId ?? (await this.networks.ensure(spec.workspaceId));
    const id = await this.docker.createContainer(createOptions(spec, { networkId: network, platformId: this.docker.platformId }));
    try {
      await this.docker.startContainer(id);
    } catch (e) {
      await this.docker.removeContainer(id).catch(() => undefined);
      throw e;
    }
    return id;
  }

  /**
   * Waits until a launched container answers. One that exits or never answers is removed, and the error carries
   * its last log lines.
   */
  async ready(id: string, readiness: Readiness): Promise<void> {
    const problem = await this.waitReady(id, readiness);
    if (!problem) return;
    const tail = await this.docker.lastLines(id, LAST_LINES);
    await this.docker.removeContainer(id).catch(() => undefined);
    throw new AppError('rollout_failed', [problem, 'Last log lines:', ...tail].join('\n'));
  }

  /** Containers carrying every one of the labels (workload containers only, not the layer's helpers). */
  async list(labels: Record<string, string>): Promise<string[]> {
    const list = await this.docker.containersWith(Object.entries(labels).map(([k, v]) => `${k}=${v}`));
    return list.filter((c) => c.Labels?.[LABELS.workspace] !== HELPER).map((c) => c.Id);
  }

  start(id: string): Promise<void> {
    return this.known(this.docker.startContainer(id));
  }

  /** SIGTERM, then SIGKILL once `graceMs` has passed. */
  stop(id: string, graceMs: number): Promise<void> {
    return this.known(this.docker.stopContainer(id, graceMs));
  }

  restart(id: string, graceMs: number): Promise<void> {
    return this.known(this.docker.restartContainer(id, graceMs));
  }

  /** Removes the containers whatever their state; a container already gone is no error. */
  async remove(ids: string[]): Promise<void> {
    for (const id of ids) await this.docker.removeContainer(id).catch(() => undefined);
  }

  /** Stops (with grace) then removes replaced containers; failures are logged, never thrown (it runs in the background). */
  async retire(ids: string[], graceMs: number): Promise<void> {
    for (const id of ids) {
      try {
        await this.docker.stopContainer(id, graceMs);
        await this.docker.removeContainer(id);
      } catch (e) {
        this.logger.warn({ container: id, err: (e as Error).message }, 'could not retire a previous container');
      }
    }
  }

  logs(id: string, options: { tail: number; follow: boolean }, onChunk: (stream: 'stdout' | 'stderr', data: Buffer) => void) {
    return this.docker.logs(id, options, onChunk);
  }

  exits(onEvent: (e: ContainerExitEvent) => void): Promise<() => void> {
    return this.docker.watchExits(onEvent);
  }

  /** null once the container answers; otherwise why it never did. */
  private async waitReady(id: string, r: Readiness): Promise<string | null> {
    const end = Date.now() + r.timeoutMs;
    let lastInspect = 0;
    while (Date.now() < end) {
      if (await answers(r)) return null;
      if (Date.now() - lastInspect > 300) {
        lastInspect = Date.now();
        const state = await this.docker.containerState(id);
        if (!state.Running || state.Restarting || state.ExitCode) return `The container exited with code ${state.ExitCode} before it answered`;
      }
      await sleep(50);
    }
    return `The app did not answer on its port within ${Math.round(r.timeoutMs / 1000)} s${r.healthPath ? ` (GET ${r.healthPath})` : ''}`;
  }

  private known(p: Promise<void>): Promise<void> {
    return p.catch((e: { statusCode?: number }) => {
      if (e.statusCode === 404) throw new AppError('not_found', 'The container is gone');
      throw e;
    });
  }
}

/** The workspace label of the layer's own short-lived containers (reading files out of an image): never a workload. */
export const HELPER = 'seed';
