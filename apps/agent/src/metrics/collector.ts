// The sampling loop (issue 15): every interval, the kernel's counters of each running managed container read from
// files (no `docker stats`, which samples twice per call and pinned every core of a peer's machine). Which containers
// run is followed from the engine's events (a listing when they start again, and every RELIST_MS). Every few minutes,
// the project folders' sizes. Closed minutes go to the MinuteStore.
import { readlinkSync } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import { setImmediate } from 'node:timers/promises';
import os from 'node:os';
import path from 'node:path';
import pLimit from 'p-limit';
import { LABELS, type ContainerExitEvent, type Logger } from '@slipway/core';
import type { ContainerEventListener } from '../containers/container-events';
import type { DockerRuntime } from '../containers/docker.runtime';
import { HELPER } from '../containers/containers';
import type { ProjectStorage } from '../storage/storage';
import { closeMinute, deltaOf, foldCycle, minuteOf, type Baseline, type ContainerSample, type Workload } from './aggregate';
import { cgroupPathsOf, detectCgroupMode, firstPid, readCounters, type CgroupMode, type CgroupPaths, type ContainerCounters } from './cgroup';
import { folderSizeMb } from './folder-size';
import type { CollectorState, MinuteStore } from './minute-store';

export interface MetricsSettings {
  /** How often counters are read (config SLIPWAY_METRICS_INTERVAL_MS); default 10 s. */
  intervalMs: number;
  /** How often project folders are measured (config SLIPWAY_METRICS_FOLDER_INTERVAL_MS); default 5 min. */
  folderIntervalMs: number;
}

/**
 * How often the running containers are listed from the engine although its events say which run: a safety net. A
 * listing every cycle was 6 MB of JSON a minute at 1,000 apps, and the large strings it left grew V8's heap (issue 34).
 */
export const RELIST_MS = 300_000;

/** How soon a running app that has no folder figure yet is measured (at most once per this, whatever the interval). */
const NEW_FOLDER_MS = 60_000;

export const DEFAULT_METRICS: MetricsSettings = { intervalMs: 10_000, folderIntervalMs: 300_000 };

/**
 * Engine inspects at once in a cycle (one for each container new to the collector). The counters themselves are read
 * one container after another, synchronously: all at once, 1,000 containers held ~6,000 open files and their read
 * buffers together (the agent's RSS grew ~130 MB per cycle at 1,000 apps and malloc kept it, issue 34 item 5), and
 * even 8 at a time through fs/promises was most of what the agent allocated at that size.
 */
export const READ_CONCURRENCY = 8;
/** How long a cycle reads counters before it lets the event loop serve (gRPC calls, engine events) again. */
const SLICE_MS = 5;

/** Resolves at once until SLICE_MS have passed since the last break, then after the event loop has had a turn. */
function breather(): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since <= SLICE_MS) return;
    await setImmediate();
    since = performance.now();
  };
}

/** The workload of a managed container from its labels; null for the layer's helpers and unlabelled ones. */
export function workloadOf(labels: Record<string, string>): Workload | null {
  const workspaceId = labels[LABELS.workspace];
  if (!workspaceId || workspaceId === HELPER) return null;
  const app = labels[LABELS.app];
  if (app) return { kind: 'app', targetId: app, workspaceId };
  const database = labels[LABELS.database];
  if (database) return { kind: 'database', targetId: database, workspaceId };
  return null;
}

/** The server as a whole, for `slipway-admin nodes`. */
export interface NodeUsage {
  cpuTotalMillis: number;
  cpuUsedMillis: number;
  memoryTotalMb: number;
  memoryUsedMb: number;
  containers: number;
  lastCycleMs: number;
}

export class MetricsCollector {
  private mode: CgroupMode = 'v1';
  private paths = new Map<string, CgroupPaths>();
  private state: CollectorState = { open: null, baselines: {}, folders: {} };
  private timer: NodeJS.Timeout | null = null;
  /** Cycles run one at a time (the timer's and `sampleNow`'s): two at once would count one interval twice. */
  private chain: Promise<void> = Promise.resolve();
  private lastFolderMs = 0;
  private lastCpu: { total: number; idle: number } | null = null;
  private usage: NodeUsage = { cpuTotalMillis: os.cpus().length * 1000, cpuUsedMillis: 0, memoryTotalMb: 0, memoryUsedMb: 0, containers: 0, lastCycleMs: 0 };
  /** The running managed containers (id → labels) as the engine's events tell; null until a snapshot or a listing. */
  private running: Map<string, Record<string, string>> | null = null;
  private listedAtMs = -Infinity;
  /** The events that arrived while the engine was being listed (null when it is not). */
  private duringListing: ContainerExitEvent[] | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly deps: {
      docker: DockerRuntime;
      storage: ProjectStorage;
      /** `<data dir>/volumes`: where project folders are (a folder that is not its own file system is walked). */
      volumesDir: string;
      store: MinuteStore;
      logger: Logger;
      settings: MetricsSettings;
      /** The agent's engine events (ContainerEventHub); without, the engine is listed every cycle. */
      events?: { subscribe(listener: ContainerEventListener): () => void };
      now?: () => number;
    },
  ) {}

  private now = () => (this.deps.now ?? Date.now)();
  /** Past this gap between two readings (an agent stopped for a while) the counters start a new baseline. */
  private get maxGapMs(): number {
    return Math.max(3 * this.deps.settings.intervalMs, 30_000);
  }

  async start(): Promise<void> {
    this.mode = await detectCgroupMode();
    const saved = await this.deps.store.loadState();
    if (saved) this.state = { open: saved.open ?? null, baselines: saved.baselines ?? {}, folders: saved.folders ?? {} };
    this.unsubscribe = this.deps.events?.subscribe(this.follower()) ?? null;
    const tick = () => {
      void this.exclusive()
        .catch((e: Error) => this.deps.logger.warn({ err: e.message }, 'metrics cycle failed'))
        .finally(() => {
          if (this.timer) this.timer = setTimeout(tick, this.deps.settings.intervalMs);
        });
    };
    this.timer = setTimeout(tick, 0);
  }

  /** Stops sampling; the open minute and the baselines are on disk already (written every cycle). */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.chain;
  }

  private exclusive(): Promise<void> {
    const next = this.chain.then(() => this.cycle());
    this.chain = next.catch(() => undefined);
    return next;
  }

  nodeUsage(): NodeUsage {
    return { ...this.usage };
  }

  /** One sampling cycle; public for tests and the benchmark. */
  async cycle(): Promise<void> {
    const started = performance.now();
    const containers = await this.runningContainers();
    const atMs = this.now();
    const measured = containers.flatMap((c) => {
      const workload = workloadOf(c.labels);
      return workload ? [{ id: c.id, workload }] : [];
    });
    const seen = new Set(measured.map((c) => c.id));
    // A process of each container: from its cgroup when the collector knows it, else (new, or restarted: the engine
    // made its cgroup anew) asked of the engine, READ_CONCURRENCY at a time.
    const pids = new Map<string, number>();
    const unknown: string[] = [];
    const breathe = breather();
    for (const { id } of measured) {
      const p = this.paths.get(id);
      const pid = p ? firstPid(p) : null;
      if (pid === null) unknown.push(id);
      else pids.set(id, pid);
      await breathe();
    }
    const bounded = pLimit(READ_CONCURRENCY);
    const resolveOne = async (id: string) => {
      const pid = await this.resolve(id).catch((e: { statusCode?: number }) => {
        // Removed: an event the collector missed (the next listing would say so too).
        if (e.statusCode === 404) this.running?.delete(id);
        return null;
      });
      if (pid !== null) pids.set(id, pid);
    };
    await Promise.all(unknown.map((id) => bounded(() => resolveOne(id))));
    // The counters, read synchronously (cgroup.ts: kernel files, no disk).
    const samples: ContainerSample[] = [];
    for (const { id, workload } of measured) {
      const reading = this.read(id, pids.get(id));
      if (reading) {
        const prev: Baseline | undefined = this.state.baselines[id];
        const deltas = deltaOf(prev, reading.identity, atMs, reading.counters, this.maxGapMs);
        this.state.baselines[id] = { identity: reading.identity, atMs, counters: reading.counters };
        samples.push({ workload, memoryBytes: reading.counters.memoryBytes, deltas });
      }
      await breathe();
    }
    for (const id of Object.keys(this.state.baselines)) if (!seen.has(id)) delete this.state.baselines[id];
    for (const id of this.paths.keys()) if (!seen.has(id)) this.paths.delete(id);

    const apps = new Set(samples.filter((x) => x.workload.kind === 'app').map((x) => x.workload.targetId));
    // A running app without a figure yet (just deployed) is measured within a minute, not at the next interval: app
    // reads show what this pipeline carried (issue 34).
    const unmeasured = [...apps].some((id) => this.state.folders[id] === undefined) && atMs - this.lastFolderMs >= Math.min(NEW_FOLDER_MS, this.deps.settings.folderIntervalMs);
    if (unmeasured || atMs - this.lastFolderMs >= this.deps.settings.folderIntervalMs) {
      this.lastFolderMs = atMs;
      await this.measureFolders(apps).catch((e: Error) => this.deps.logger.warn({ err: e.message }, 'project folders not measured'));
    }

    const minute = minuteOf(atMs);
    if (this.state.open && this.state.open.minute < minute) {
      const closed = this.state.open;
      await this.deps.store.append(closed.minute, closeMinute(closed, (id) => this.state.folders[id] ?? -1));
      this.state.open = null;
    }
    this.state.open ??= { minute, totals: {} };
    foldCycle(this.state.open, samples);
    await this.deps.store.saveState(this.state);
    await this.measureNode(samples.length);
    this.usage.lastCycleMs = performance.now() - started;
  }

  /** Runs one cycle now, after the one running if any: tests use it to avoid waiting an interval. */
  sampleNow(): Promise<void> {
    return this.exclusive();
  }

  /** Keeps `running` as the engine's events say: a start adds, a die or a removal takes out. */
  private follower(): ContainerEventListener {
    return {
      // The engine's stream was opened (again): what happened while it was not is only in a listing.
      onSnapshot: () => (this.listedAtMs = -Infinity),
      onExit: (e) => {
        this.duringListing?.push(e);
        this.follow(e);
      },
    };
  }

  private follow(e: ContainerExitEvent): void {
    if (e.action === 'start') this.running?.set(e.containerId, e.labels);
    else if (e.action === 'die' || e.action === 'destroy') this.running?.delete(e.containerId);
  }

  /** The running managed containers: from the events when they are followed, else (and every RELIST_MS) listed. */
  private async runningContainers(): Promise<{ id: string; labels: Record<string, string> }[]> {
    if (!this.deps.events) return (await this.deps.docker.listManaged()).filter((c) => c.state === 'running');
    if (!this.running || this.now() - this.listedAtMs >= RELIST_MS) {
      // The listing is the engine's state at some moment while it is asked for: the events that came meanwhile are
      // applied again over it, in order, so none of them is undone by a listing taken before it.
      this.duringListing = [];
      try {
        const listed = await this.deps.docker.listManaged();
        this.running = new Map(listed.filter((c) => c.state === 'running').map((c) => [c.id, c.labels]));
        for (const e of this.duringListing) this.follow(e);
        this.listedAtMs = this.now();
      } finally {
        this.duringListing = null;
      }
    }
    return [...this.running].map(([id, labels]) => ({ id, labels }));
  }

  /** The cgroup files of a container new to the collector (or restarted) from the engine's pid; that pid, or null. */
  private async resolve(id: string): Promise<number | null> {
    const info = await this.deps.docker.inspectContainer(id);
    if (!info.State.Running || !info.State.Pid) {
      // Stopped: an event the collector missed or read before the listing that still showed it running.
      this.running?.delete(id);
      return null;
    }
    const resolved = cgroupPathsOf(await readFile(`/proc/${info.State.Pid}/cgroup`, 'utf8'), this.mode);
    if (!resolved) return null;
    this.paths.set(id, resolved);
    return info.State.Pid;
  }

  /** One container's counters and network namespace; null (its paths forgotten, resolved again next cycle) when gone. */
  private read(id: string, pid: number | undefined): { identity: string; counters: ContainerCounters } | null {
    const p = this.paths.get(id);
    if (!p || pid === undefined) return null;
    try {
      return { identity: readlinkSync(`/proc/${pid}/ns/net`), counters: readCounters(p, pid) };
    } catch {
      this.paths.delete(id);
      return null;
    }
  }

  /**
   * Each folder that is its own file system (loop-mounted ext4 image): statfs of its mount, exact and cheap. A
   * running app whose folder is a plain directory (from before issue 21): a bounded walk, symlinks never followed.
   */
  private async measureFolders(runningApps: Set<string>): Promise<void> {
    const folders: Record<string, number> = {};
    for (const [appId, u] of await this.deps.storage.usageAll()) folders[appId] = u.usedMb;
    for (const appId of runningApps) {
      if (folders[appId] !== undefined || !/^[0-9a-f-]{36}$/.test(appId)) continue;
      const dir = path.join(this.deps.volumesDir, appId);
      if ((await lstat(dir).catch(() => null))?.isDirectory()) folders[appId] = await folderSizeMb(dir);
    }
    this.state.folders = folders;
  }

  private async measureNode(containers: number): Promise<void> {
    const stat = await readFile('/proc/stat', 'utf8').catch(() => '');
    const f = (stat.split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
    if (f.length >= 5) {
      const idle = (f[3] ?? 0) + (f[4] ?? 0);
      const total = f.reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0);
      if (this.lastCpu && total > this.lastCpu.total) {
        const busy = 1 - (idle - this.lastCpu.idle) / (total - this.lastCpu.total);
        this.usage.cpuUsedMillis = Math.max(0, Math.round(busy * this.usage.cpuTotalMillis));
      }
      this.lastCpu = { total, idle };
    }
    const mem = await readFile('/proc/meminfo', 'utf8').catch(() => '');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(mem)?.[1] ?? 0);
    this.usage.memoryTotalMb = Math.round(kb('MemTotal') / 1024);
    this.usage.memoryUsedMb = Math.round((kb('MemTotal') - kb('MemAvailable')) / 1024);
    this.usage.containers = containers;
  }
}
