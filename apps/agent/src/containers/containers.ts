import { randomUUID } from 'node:crypto';
import { AppError, LABELS, type ContainerExitEvent, type Logger } from '@slipway/core';
import type Docker from 'dockerode';
import type { DockerRuntime } from './docker.runtime';
import type { WorkspaceNetworks } from './networks';
import { answersOnHostPort, NamespaceProbe, type Probe, type ProbeAnswer, type Readiness } from './readiness';
import { createOptions, NO_NETWORK, RESTART_POLICY, type ContainerSpec } from './spec';

const LAST_LINES = 20;
/** One probe's own time limit; a container slower than that to answer one request is not ready. */
const PROBE_TIMEOUT_MS = 2_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A duration as people read it in a reason: `2.0 s`. */
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * One lifecycle for every workload's containers, in the spirit of Nomad's task drivers: a workload (an app's
 * deployment, a managed database, a backup's load check) describes its container as a ContainerSpec and a Readiness,
 * and this layer does the rest the same way for all of them — network, labels, limits and hardening (spec.ts),
 * create-or-keep by spec hash (`ensure`), throw-away runs (`throwaway`), start, readiness (HTTP, TCP, or an exec of the
 * engine's own client), stop with a grace period, removal, logs and events. Only DockerRuntime talks to the engine.
 */
export class Containers {
  constructor(
    private readonly docker: DockerRuntime,
    readonly networks: WorkspaceNetworks,
    private readonly logger: Logger,
  ) {}

  /**
   * Creates the container on its workspace's one network (made or healed on demand, unless the caller did it) with the
   * layer's hardening, and starts it; one that cannot start is removed. Its restart policy is held back (`no`) until
   * `ready` passes: a container that exits while it is being judged stays exited, with its exit code and OOM flag,
   * instead of being restarted out of sight. `beforeStart` runs between create and start (a failure removes it).
   */
  async launch(spec: ContainerSpec, networkId?: string, beforeStart?: () => Promise<unknown>): Promise<string> {
    const network = networkId ?? (await this.networks.ensure(spec.workspaceId));
    const options = createOptions(spec, { networkId: network, platformId: this.docker.platformId });
    const id = await this.docker.createContainer({ ...options, HostConfig: { ...options.HostConfig, RestartPolicy: { Name: 'no' } } });
    try {
      // What must be ready before the process starts (its project folder seeded) may finish while it is created.
      await beforeStart?.();
      await this.docker.startContainer(id);
    } catch (e) {
      await this.docker.removeContainer(id).catch(() => undefined);
      throw e;
    }
    return id;
  }

  /**
   * Waits until a launched container answers its probe (from inside its own network namespace) and then keeps
   * running and answering for the settle window with no exit and no restart; then it gets its restart policy back.
   * One that fails is removed, and the error (`rollout_failed`) says why, with its last log lines.
   */
  async ready(id: string, readiness: Readiness, emit: (line: string) => void = () => undefined, o: { arm?: boolean } = {}): Promise<void> {
    const problem = await this.watch(id, readiness, emit);
    if (!problem) {
      // `arm: false`: the caller keeps judging it (a settle window with the previous container warm) and arms it after.
      if (o.arm === false) return;
      await this.armRestart(id).catch((e: unknown) => {
        if (e instanceof AppError && e.code === 'not_found') throw new AppError('rollout_failed', 'The container was removed (not by this rollout) once it was ready');
        throw e;
      });
      return;
    }
    const tail = await this.docker.lastLines(id, LAST_LINES).catch(() => [] as string[]);
    await this.docker.removeContainer(id).catch(() => undefined);
    throw new AppError('rollout_failed', [problem, tail.length ? 'Last log lines:' : `${readiness.subject ?? 'The app'} wrote no log lines.`, ...tail].join('\n'));
  }

  /**
   * Judges a launched container as `ready` does (answers, then keeps running and answering for `settleMs`), with no
   * side effect: null when it passed, else why not (a sentence).
   */
  watch(id: string, readiness: Readiness, emit: (line: string) => void = () => undefined): Promise<string | null> {
    return this.judge(id, readiness, emit).catch((e: Error & { statusCode?: number }) =>
      e.statusCode === 404 ? 'The container was removed (not by this rollout) while it was being checked' : `The container could not be checked: ${e.message}`,
    );
  }

  /** Gives a judged container its restart policy (held back at `launch`). */
  armRestart(id: string): Promise<void> {
    return this.known(this.docker.setRestartPolicy(id, RESTART_POLICY));
  }

  /** Why the container no longer runs as started (exited, killed, OOM), or null while it runs; "gone" when removed. */
  async exitReason(id: string): Promise<string | null> {
    try {
      const now = await this.docker.inspectContainer(id);
      return exitOf(now, now);
    } catch (e) {
      if ((e as { statusCode?: number }).statusCode === 404) return 'The container was removed';
      throw e;
    }
  }

  /**
   * The workload's one container, running and ready: kept when it exists with the same spec hash on its workspace
   * network (started and judged again if it was not running), else created — an existing one with another hash
   * (image, size, command, certificates changed) is stopped with `graceMs` and removed first, and the new one gets
   * the same mounts, so it comes back on its data. The container is found by its name (`spec.name`). With
   * `stopped`, it is created or kept but not started (a running one is stopped with grace). `beforeReplace` runs
   * before a container is replaced (a database closes its public listener). A container that fails its readiness
   * is removed (its mounts stay) and the error (`rollout_failed`) says why with its last log lines.
   */
  async ensure(
    spec: ContainerSpec,
    readiness: Readiness,
    specHash: string,
    o: { graceMs: number; stopped?: boolean; networkId?: string; beforeReplace?: () => Promise<void> },
  ): Promise<{ id: string; created: boolean }> {
    const networkId = o.networkId ?? (await this.networks.ensure(spec.workspaceId));
    let existing = await this.docker.containerByName(spec.name);
    if (existing && (existing.Labels[SPEC_LABEL] !== specHash || !onNetwork(existing, networkId))) {
      this.logger.info({ container: spec.name }, 'container recreated on its data (spec changed)');
      await o.beforeReplace?.();
      await this.docker.stopContainer(existing.Id, o.graceMs).catch(() => undefined);
      await this.docker.removeContainer(existing.Id).catch((e: { statusCode?: number }) => {
        if (e.statusCode !== 404) throw e;
      });
      existing = null;
    }
    const labelled = { ...spec, labels: { ...spec.labels, [SPEC_LABEL]: specHash } };
    const id = existing?.Id ?? (await this.create(labelled, networkId));
    if (o.stopped) {
      await this.stop(id, o.graceMs);
      return { id, created: !existing };
    }
    await this.start(id);
    await this.ready(id, readiness);
    return { id, created: !existing };
  }

  /**
   * Runs `use` with a short-lived container of the spec (no network unless `networkId` is given, no restart, the
   * same hardening and labels as every workload) once it passes `readiness`, and removes it whatever happens. The
   * throw-away containers an earlier agent process left (cut by a restart) are removed first, and so is one of the
   * same name.
   */
  async throwaway<T>(spec: ContainerSpec, readiness: Readiness | null, use: (id: string) => Promise<T>, networkId = NO_NETWORK): Promise<T> {
    for (const c of await this.docker.containersWith([`${THROWAWAY_LABEL}`, `${LABELS.platform}=${this.docker.platformId}`])) {
      if (c.Labels[THROWAWAY_LABEL] !== THIS_RUN || c.Names.includes(`/${spec.name}`)) await this.docker.removeContainer(c.Id).catch(() => undefined);
    }
    const options = createOptions({ ...spec, port: null, labels: { ...spec.labels, [THROWAWAY_LABEL]: THIS_RUN } }, { networkId, platformId: this.docker.platformId });
    const id = await this.docker.createContainer({ ...options, HostConfig: { ...options.HostConfig, RestartPolicy: { Name: 'no' } } });
    try {
      await this.docker.startContainer(id);
      if (readiness) await this.judged(id, readiness);
      return await use(id);
    } finally {
      await this.docker.removeContainer(id).catch(() => undefined);
    }
  }

  /** Creates the container (restart policy held back until `ready`), not started. */
  private async create(spec: ContainerSpec, networkId: string): Promise<string> {
    const options = createOptions(spec, { networkId, platformId: this.docker.platformId });
    return this.docker.createContainer({ ...options, HostConfig: { ...options.HostConfig, RestartPolicy: { Name: 'no' } } });
  }

  /** Like `ready` without arming a restart policy or removing the container (a throw-away one is removed anyway). */
  private async judged(id: string, readiness: Readiness): Promise<void> {
    const problem = await this.judge(id, readiness, () => undefined);
    if (!problem) return;
    const tail = await this.docker.lastLines(id, LAST_LINES).catch(() => [] as string[]);
    throw new AppError('rollout_failed', [problem, ...(tail.length ? ['Last log lines:', ...tail] : [])].join('\n'));
  }

  /** One probe for the length of a check: HTTP and TCP from inside the container's network namespace, exec through the engine. */
  private prober(id: string, pid: number, p: Probe): { ask(timeoutMs: number): Promise<ProbeAnswer>; close(): void } {
    if (p.kind !== 'exec') {
      const ns = NamespaceProbe.enter(pid);
      return { ask: (t) => ns.ask(p, t), close: () => ns.close() };
    }
    return {
      ask: async () => {
        const r = await this.docker.exec(id, { cmd: p.cmd, env: p.env, stdin: p.stdin, timeoutMs: EXEC_PROBE_TIMEOUT_MS }).catch((e: Error) => ({ exitCode: -1, stdout: '', stderr: e.message }));
        const ok = r.exitCode === 0 && (!p.ok || p.ok(r.stdout));
        return { ok, detail: ok ? `${p.cmd[0]} succeeded` : `${p.cmd[0]} exit ${r.exitCode}: ${(r.stderr || r.stdout).trim().split('\n').pop()?.slice(0, 200) ?? ''}` };
      },
      close: () => undefined,
    };
  }

  /** Containers carrying every one of the labels (workload containers only, not the layer's helpers). */
  async list(labels: Record<string, string>): Promise<string[]> {
    const list = await this.docker.containersWith(Object.entries(labels).map(([k, v]) => `${k}=${v}`));
    return list.filter((c) => c.Labels?.[LABELS.workspace] !== HELPER && !c.Labels?.[THROWAWAY_LABEL]).map((c) => c.Id);
  }

  start(id: string): Promise<void> {
    return this.known(this.docker.startContainer(id));
  }

  /** Sets a running or stopped container's CPU limit in place (no restart); true when it was different. */
  limitCpu(id: string, cpuMillis: number): Promise<boolean> {
    return this.known(this.docker.setCpuLimit(id, cpuMillis));
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

  events(onEvent: (e: ContainerExitEvent) => void): Promise<() => void> {
    return this.docker.watchEvents(onEvent);
  }

  /**
   * null once the container has answered and then kept running and answering for `settleMs`; otherwise why not.
   * The engine's state is read every round (exit code, OOM kill, restart count, pid): a probe alone can be lucky.
   */
  private async judge(id: string, r: Readiness, emit: (line: string) => void): Promise<string | null> {
    const first = await this.docker.inspectContainer(id);
    const exited = exitOf(first, first);
    if (exited) return `${exited} before it answered`;
    const probe = r.probe ? this.prober(id, first.State.Pid, r.probe) : null;
    const subject = r.subject ?? 'The app';
    try {
      const deadline = Date.now() + r.timeoutMs;
      let answeredAt = probe ? null : Date.now();
      let last = '';
      for (;;) {
        const state = await this.settled(id);
        const gone = exitOf(state, first);
        if (gone) return answeredAt === null ? `${gone} before it answered` : `${gone} ${seconds(Date.now() - answeredAt)} after it first answered`;
        if (answeredAt !== null && Date.now() - answeredAt >= r.settleMs) break;
        if (probe && r.probe) {
          const a = await probe.ask(PROBE_TIMEOUT_MS);
          last = a.detail;
          if (a.ok && answeredAt === null) {
            answeredAt = Date.now();
            emit(`${subject} answers (${a.detail})${r.settleMs ? `; it must keep running and answering for ${seconds(r.settleMs)}` : ''}`);
          } else if (!a.ok && answeredAt !== null) {
            // Most often the process just died: say so rather than "stopped answering" when the engine knows.
            await sleep(200);
            const why = exitOf(await this.settled(id), first);
            const after = seconds(Date.now() - answeredAt);
            return why ? `${why} ${after} after it first answered` : `${subject} answered, then stopped answering ${after} later (${a.detail})`;
          }
        }
        if (answeredAt === null && Date.now() > deadline) {
          const asked =
            r.probe?.kind === 'http'
              ? `GET ${r.probe.healthPath || '/'} on port ${r.probe.port}${r.probe.healthPath ? ' (2xx/3xx)' : ' (any HTTP response)'}`
              : r.probe?.kind === 'exec'
                ? `${r.probe.cmd[0]} inside the container`
                : `a connection to port ${r.probe?.port}`;
          return `${subject} did not answer ${r.probe?.kind === 'exec' ? '' : 'on its port '}within ${Math.round(r.timeoutMs / 1000)} s: ${asked}, last try: ${last}`;
        }
        // Not answered yet: asks again soon (the first answer is when a release can take the route). Answered: looks
        // every 250 ms until the window ends (at once when there is none).
        await sleep(answeredAt === null ? firstAnswerPollMs(r.probe) : Math.min(250, Math.max(0, r.settleMs - (Date.now() - answeredAt))));
      }
      if (r.probe?.kind === 'http' && r.hostPort) {
        const a = await answersOnHostPort(r.hostPort, r.probe.healthPath, PROBE_TIMEOUT_MS);
        if (!a.ok) return `${subject} answers inside its container but not on its published port 127.0.0.1:${r.hostPort} (${a.detail})`;
      }
      if (!probe) emit(`The container kept running for ${seconds(r.settleMs)}`);
      return null;
    } finally {
      probe?.close();
    }
  }

  /**
   * The container's state, once the engine has finished recording an exit: a kill by the kernel's OOM killer can be
   * seen as a plain exit 137 for a moment before the engine sets `OOMKilled` (its oom event comes separately).
   */
  private async settled(id: string): Promise<Docker.ContainerInspectInfo> {
    const state = await this.docker.inspectContainer(id);
    if (state.State.Running || state.State.ExitCode !== 137 || state.State.OOMKilled) return state;
    await sleep(500);
    return this.docker.inspectContainer(id);
  }

  private known<T>(p: Promise<T>): Promise<T> {
    return p.catch((e: { statusCode?: number }) => {
      if (e.statusCode === 404) throw new AppError('not_found', 'The container is gone');
      throw e;
    });
  }
}

/** Why the container is no longer the one that was started (exited, killed, restarted), or null while it runs. */
function exitOf(now: Docker.ContainerInspectInfo, first: Docker.ContainerInspectInfo): string | null {
  const s = now.State;
  if (s.OOMKilled) return `The container ran out of memory (its limit is ${Math.round((now.HostConfig.Memory ?? 0) / 1024 / 1024)} MB) and was killed`;
  if (!s.Running && !s.Restarting && s.ExitCode === 137) return `The container was killed (SIGKILL, exit code 137; the engine did not report running out of memory)`;
  if (!s.Running && !s.Restarting) return `The container exited with code ${s.ExitCode}`;
  if (s.Restarting || now.RestartCount > first.RestartCount || s.Pid !== first.State.Pid) return `The container restarted (exit code ${s.ExitCode})`;
  return null;
}

/** The workspace label of the layer's own short-lived containers (reading files out of an image): never a workload. */
export const HELPER = 'seed';
/** The spec hash a container was made from (`ensure` recreates it when the hash changes). */
export const SPEC_LABEL = 'slipway.spec';
/** A throw-away container, valued with the agent process that made it (so a later one removes what an earlier left). */
export const THROWAWAY_LABEL = 'slipway.throwaway';
const THIS_RUN = randomUUID();
/**
 * The pause between two probes until the first answer: short for HTTP and TCP (a request from the probe process
 * already in the container's namespace costs well under a millisecond; every ms after the app listens is a ms before
 * its route moves), longer for an exec (each starts the engine's client in the container through the engine).
 */
export function firstAnswerPollMs(probe: Probe | null): number {
  if (!probe) return 100;
  return probe.kind === 'exec' ? 50 : 15;
}
/** An exec probe's own time limit (an engine's client connecting and running one query). */
const EXEC_PROBE_TIMEOUT_MS = 10_000;

function onNetwork(c: Docker.ContainerInfo, networkId: string): boolean {
  return Object.values(c.NetworkSettings?.Networks ?? {}).some((n) => n.NetworkID === networkId);
}
