import { LABELS, type Logger, type ManagedContainer } from '@slipway/core';
import { seconds, type Containers } from '../containers/containers';
import type { Readiness } from '../containers/readiness';
import { loadJson, saveJson, SerialQueue } from '../ingress/caddy-admin';
import type { CaddyIngress } from '../ingress/caddy.ingress';

/** How many image ids that passed a settle window are remembered (a rollback to one of them skips the window). */
const PROVEN_IMAGES = 500;
/** See `failed`: Caddy has marked the dead upstream down long before (its first refused request). */
const ROUTE_BACK_DELAY_MS = 1_000;
/** How long a settle failure is reported on its container (the control plane records the revert well before). */
const FAILURE_KEPT_MS = 24 * 3_600_000;

/** The container of the release that served before, kept running behind the new one during its window. */
export interface Fallback {
  containerId: string;
  deploymentId: string;
  hostPort: number;
}

/** A release inside its settle window: it takes the route, the previous container is its fallback. */
export interface SettleWindow {
  appId: string;
  deploymentId: string;
  containerId: string;
  hostPort: number;
  routeHost: string;
  imageId: string;
  stopGraceMs: number;
  fallback: Fallback;
}

interface Open extends SettleWindow {
  /** When the window opened: the release had just answered (a reason says how long after that it died). */
  openedAtMs: number;
  cancelled: boolean;
  concluded: Promise<void> | null;
}

interface Failure {
  appId: string;
  deploymentId: string;
  reason: string;
  fallbackDeploymentId: string;
  atMs: number;
}

interface Saved {
  failures: Record<string, Failure>;
  proven: string[];
  /** Containers of windows open when this was saved (an agent restarted inside one arms them at load). */
  open?: string[];
}

/**
 * Settle windows of releases that took the route as soon as they answered (decision 0038). While a window is open the
 * route has two upstreams, the new container first and the previous one as Caddy's fallback; the new container is
 * judged for the window as before (exit, OOM kill, restart, stops answering) with its restart policy held back.
 * - It passes: its restart policy is armed, the route keeps only it, the previous container is retired (SIGTERM, grace),
 *   and its image is remembered as proven (a rollback to it needs no window).
 * - It fails: the route goes back to the previous container alone, a container still running is stopped, and the
 *   failure is kept on the container (reported by ListManagedContainers: the control plane's converge records the
 *   revert). The dead container stays (exited, no restart policy) until the control plane removes it.
 * A newer rollout, a power action or a removal of the app closes the window (cancel): the container is armed and the
 * newer action decides about the rest. Failures and proven images are saved in `<dataDir>/settle.json`.
 */
export class SettleWindows {
  private readonly open = new Map<string, Open>();
  private failures: Record<string, Failure> = {};
  private proven: string[] = [];
  private readonly saves = new SerialQueue();

  constructor(
    private readonly containers: Containers,
    private readonly ingress: CaddyIngress,
    private readonly logger: Logger,
    private readonly file: string,
    /** How long after a release died the route drops it (Caddy's passive check already routes around it). */
    private readonly routeBackDelayMs = ROUTE_BACK_DELAY_MS,
  ) {}

  async load(): Promise<this> {
    const saved = await loadJson<Saved>(this.file);
    this.failures = saved?.failures ?? {};
    this.proven = saved?.proven ?? [];
    // A window cut by an agent restart has no judge any more: its container becomes an ordinary one (restart policy),
    // and the control plane's comparisons retire the previous one as they retire any replaced container.
    for (const id of saved?.open ?? []) await this.containers.armRestart(id).catch(() => undefined);
    if (saved?.open?.length) await this.save();
    return this;
  }

  isProven(imageId: string): boolean {
    return this.proven.includes(imageId);
  }

  /** The image passed a settle window on this server (a rollback to it needs none). */
  async remember(imageId: string): Promise<void> {
    this.proven = [...this.proven.filter((id) => id !== imageId), imageId].slice(-PROVEN_IMAGES);
    await this.save();
  }

  /** The window of the app's release being judged now, if any. */
  /** The container is a release whose settle window is open, or failed here a moment ago: this judges its death. */
  judges(containerId: string, appId: string): boolean {
    return this.open.get(appId)?.containerId === containerId || containerId in this.failures;
  }

  current(appId: string): SettleWindow | null {
    return this.open.get(appId) ?? null;
  }

  /**
   * Opens the window (the route already has both upstreams) and judges the new container for `readiness.settleMs` in
   * the background; `onLine` gets what happens (the agent's log: the deployment's stream has ended by then).
   */
  start(w: SettleWindow, readiness: Readiness): void {
    const open: Open = { ...w, openedAtMs: Date.now(), cancelled: false, concluded: null };
    this.open.set(w.appId, open);
    void this.save().catch((e: Error) => this.logger.warn({ err: e.message }, 'could not save the open settle windows'));
    void this.containers
      .watch(w.containerId, readiness)
      .then((problem) => this.conclude(open, problem))
      .catch((e: Error) => this.logger.warn({ appId: w.appId, err: e.message }, 'a settle window could not be concluded'));
  }

  /**
   * Closes the app's window without a verdict (a newer rollout, a power action, a removal): its container gets its
   * restart policy (it is an ordinary container from now on). Returns the window that was open.
   */
  async cancel(appId: string): Promise<SettleWindow | null> {
    const open = this.open.get(appId);
    if (!open) return null;
    if (open.concluded) {
      await open.concluded;
      return null;
    }
    open.cancelled = true;
    this.open.delete(appId);
    await this.containers.armRestart(open.containerId).catch(() => undefined);
    await this.save();
    return open;
  }

  /**
   * The listing with what the windows know: a container inside its window is `settling`; one that failed its window
   * carries the reason and the deployment that serves again. A container of an open window that no longer runs is
   * judged at once (its exit may reach the control plane before the window's next look).
   */
  async decorate(list: ManagedContainer[]): Promise<ManagedContainer[]> {
    for (const c of list) {
      const open = this.open.get(c.labels[LABELS.app] ?? '');
      if (open && open.containerId === c.id && c.state !== 'running') {
        // Said as the window's own watch says it (whichever sees the exit first writes the reason).
        const why = (await this.containers.exitReason(c.id).catch(() => null)) ?? `The container is ${c.state}`;
        await this.conclude(open, `${why} ${seconds(Date.now() - open.openedAtMs)} after it first answered`);
      }
    }
    return list.map((c) => {
      const failure = this.failures[c.id];
      if (failure) return { ...c, settleFailure: failure.reason, fallbackDeploymentId: failure.fallbackDeploymentId };
      const open = this.open.get(c.labels[LABELS.app] ?? '');
      return open?.containerId === c.id ? { ...c, settling: true } : c;
    });
  }

  /** The verdict, once per window (the background judge and a listing may both reach it). */
  private conclude(open: Open, problem: string | null): Promise<void> {
    open.concluded ??= (async () => {
      if (open.cancelled) return;
      try {
        if (problem === null) await this.passed(open);
        else await this.failed(open, problem);
      } finally {
        if (this.open.get(open.appId) === open) this.open.delete(open.appId);
        await this.save().catch((e: Error) => this.logger.warn({ err: e.message }, 'could not save the settle windows'));
      }
    })();
    return open.concluded;
  }

  private async passed(w: Open): Promise<void> {
    await this.containers.armRestart(w.containerId);
    if (this.ingress.routeOf(w.appId)?.upstreamPort === w.hostPort) await this.ingress.put({ appId: w.appId, host: w.routeHost, upstreamPort: w.hostPort });
    await this.remember(w.imageId);
    this.logger.info({ appId: w.appId, deploymentId: w.deploymentId }, 'the release passed its settle window: the previous container is retired');
    // In the background (it logs its own failures): a rollout that cancels the app's next window waits for this
    // verdict, and must not wait for the previous container's grace period too.
    void this.containers.retire([w.fallback.containerId], w.stopGraceMs);
  }

  private async failed(w: Open, reason: string): Promise<void> {
    const now = Date.now();
    for (const [id, f] of Object.entries(this.failures)) if (now - f.atMs > FAILURE_KEPT_MS) delete this.failures[id];
    this.failures[w.containerId] = { appId: w.appId, deploymentId: w.deploymentId, reason, fallbackDeploymentId: w.fallback.deploymentId, atMs: now };
    await this.save();
    this.logger.warn({ appId: w.appId, deploymentId: w.deploymentId, reason }, 'the release failed inside its settle window: the previous container serves again');
    const routeBack = async () => {
      if (this.ingress.routeOf(w.appId)?.upstreamPort === w.hostPort) await this.ingress.put({ appId: w.appId, host: w.routeHost, upstreamPort: w.fallback.hostPort });
    };
    if ((await this.containers.exitReason(w.containerId).catch(() => null)) === null) {
      // One that hangs (stopped answering, still running): out of the route now (Caddy has no failure to see), stopped.
      await routeBack();
      await this.containers.stop(w.containerId, w.stopGraceMs).catch(() => undefined);
      return;
    }
    // An exited one stays as it is, for its logs. Caddy already sends every request to the fallback (the dead upstream
    // refused one and is marked down): the route changes a little later, when no request is waiting to be retried —
    // Caddy 2.6 gives up a retry that waits across a config reload (a 502).
    setTimeout(() => void routeBack().catch((e: Error) => this.logger.warn({ appId: w.appId, err: e.message }, 'could not take a failed release out of the route (the watchdog and the next sync do)')), this.routeBackDelayMs).unref();
  }

  private save(): Promise<void> {
    // One write at a time (each a temporary file and a rename), each of the state as it is when it runs.
    return this.saves.run(() => saveJson(this.file, { failures: this.failures, proven: this.proven, open: [...this.open.values()].map((w) => w.containerId) } satisfies Saved));
  }
}
