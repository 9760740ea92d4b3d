import { ImageGate } from '../builds/image-gate';
import type { BuildCaches } from '../builds/build-cache';
import { DEFAULT_REMOVAL_CONCURRENCY, RemovalPool } from '../containers/removal-pool';
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile, chown } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { AppError, LABELS, type AppPowerInput, type AppRoute, type DeployResult, type Logger, type ManagedContainer, type PrepareImageInput, type RolloutInput } from '@slipway/core';
import { HELPER, seconds, type Containers } from '../containers/containers';
import type { DockerRuntime } from '../containers/docker.runtime';
import { freeHostPort } from '../containers/readiness';
import type { ContainerSpec } from '../containers/spec';
import type { CaddyIngress } from '../ingress/caddy.ingress';
import type { DiskGuard } from '../storage/disk-guard';
import { FolderBusyError } from '../storage/loop-ext4.storage';
import type { ProjectStorage } from '../storage/storage';
import { SeedCache } from './seed-cache';
import { SettleWindows, type Fallback, type SettleWindow } from './settle-windows';

/** An app's project folder when the control plane gave no size (an older control plane): the plans' minimum. */
export const DEFAULT_DISK_MB = 512;
import { engineMessage, engineUnreachable, pullFailure, rolloutFailure, type RolloutStep } from './failure-reasons';

/** How many images' resolved USER the agent remembers (a few dozen bytes each). */
const OWNERS_KEPT = 1_000;

/** The repository of an app's deployment tags (slipway-app/<appId>:<deploymentId>). */
export const appRepository = (appId: string) => `slipway-app/${appId}`;

type Emit = (line: string) => void;

/**
 * App containers on this server, as a workload of the container layer: image preparation (the build phase of image
 * apps), rollouts with a readiness check before the route moves, start/stop/restart, and removal of everything an
 * app left. Project folders live at `<dataDir>/volumes/<appId>`, each its own file system of the app's disk size
 * (`../storage/`); which image last seeded a folder is recorded outside it, in `volumes/.meta/<appId>.json`. The
 * container's root file system is read-only and its /tmp a sized tmpfs, so the folder is the only disk it can fill.
 */
export class AppsRuntime {
  constructor(
    private readonly docker: DockerRuntime,
    private readonly containers: Containers,
    private readonly ingress: CaddyIngress,
    private readonly storage: ProjectStorage,
    private readonly disk: DiskGuard,
    private readonly dataDir: string,
    private readonly logger: Logger,
    /** tmpMb: the size of /tmp; readySettleMs: how long a new container must keep running and answering before the route moves to it. */
    private readonly limits: { tmpMb: number; readySettleMs: number },
    /** Shared with the builder: image removal waits while builds run (../builds/image-gate.ts). */
    private readonly imageGate: ImageGate = new ImageGate(),
    /** Shared with the workspaces' removal: at most SLIPWAY_REMOVAL_CONCURRENCY removals at once (../containers/removal-pool.ts). */
    private readonly removals: RemovalPool = new RemovalPool(DEFAULT_REMOVAL_CONCURRENCY),
    /** The apps' BuildKit cache records, removed with their images (../builds/build-cache.ts). */
    private readonly buildCaches?: Pick<BuildCaches, 'remove'>,
  ) {
    this.windows = new SettleWindows(containers, ingress, logger, path.join(dataDir, 'settle.json'));
    this.seeds = new SeedCache(path.join(dataDir, 'seed-cache'));
  }

  /** Images' mount paths as tar files, to seed project folders without reading the image again (seed-cache.ts). */
  private readonly seeds: SeedCache;

  /** Releases inside their settle window with the previous container warm behind them (decision 0038). */
  private readonly windows: SettleWindows;

  /** Reads what the settle windows saved (failures not yet recorded, images that passed a window). */
  async load(): Promise<this> {
    await this.windows.load();
    return this;
  }

  folderOf(appId: string): string {
    return path.join(this.dataDir, 'volumes', appId);
  }

  private metaOf(appId: string): string {
    return path.join(this.dataDir, 'volumes', '.meta', `${appId}.json`);
  }

  // ------------------------------------------------------------------------------------------------ images

  async prepareImage(req: PrepareImageInput, emit: Emit): Promise<DeployResult> {
    await this.disk.assertRoom('a new deployment');
    try {
      return await this.prepareImageSteps(req, emit);
    } catch (e) {
      throw this.explained(e, 'image', req, emit);
    }
  }

  private async prepareImageSteps(req: PrepareImageInput, emit: Emit): Promise<DeployResult> {
    const imageRef = `${appRepository(req.appId)}:${req.deploymentId}`;
    let source = req.image;
    if (req.localOnly) {
      if (!(await this.docker.imageId(source))) throw new AppError('image_unavailable', 'The image of that deployment is no longer on this server');
      emit(`Image ${source} is on this server`);
    } else {
      emit(`Pulling ${source}`);
      try {
        await this.pull(source, emit);
        emit(`Pulled ${source}`);
      } catch (e) {
        // The engine itself gone is no answer about the image: the caller retries (node_unavailable).
        if (engineUnreachable(e)) throw e;
        const local = await this.docker.imageId(source);
        if (!local) {
          const message = engineMessage(e);
          emit(`The pull failed: ${message}`);
          this.logger.warn({ appId: req.appId, deploymentId: req.deploymentId, image: source, err: message }, 'image pull failed');
          throw pullFailure(source, message);
        }
        emit(`No registry answered (${firstLine(engineMessage(e))}); using the image present on this server`);
        source = local;
      }
    }
    const id = await this.docker.imageId(source);
    if (!id) throw new AppError('rollout_failed', `The image ${source} is not on this server`);
    await this.docker.tagImage(id, appRepository(req.appId), req.deploymentId);
    emit(`Image ${id.slice(0, 19)} tagged ${imageRef}`);
    return { imageId: id, imageRef, containerId: '', hostPort: 0 };
  }

  private async pull(image: string, emit: Emit): Promise<void> {
    const seen = new Set<string>();
    await this.docker.pullImage(image, (e) => {
      // Progress bars repeat; one line per layer and status is enough for the log.
      const line = [e.id, e.status].filter(Boolean).join(': ');
      if (line && !seen.has(line)) {
        seen.add(line);
        emit(line);
      }
    });
  }

  // ----------------------------------------------------------------------------------------------- rollout

  async rollout(req: RolloutInput, emit: Emit): Promise<DeployResult> {
    await this.disk.assertRoom('a new deployment');
    // Which step the engine refused decides the sentence the user reads (failure-reasons.ts).
    let step: RolloutStep = 'image';
    // A rollback whose release still runs warm behind the route: the route went back to it at once (see `bridge`).
    let bridged: SettleWindow | null = null;
    try {
      const image = await this.docker.inspectImage(req.imageRef);
      if (!image) throw new AppError('rollout_failed', `The image ${req.imageRef} is not on this server`);
      const mountPath = image.Config.WorkingDir && image.Config.WorkingDir !== '/' ? image.Config.WorkingDir : '/app';
      if (req.maySkipSettle === true && this.limits.readySettleMs > 0 && this.windows.isProven(image.Id)) {
        step = 'route';
        bridged = await this.bridge(req, image, emit);
      }
      step = 'folder';
      const owner = await this.ownerOf(req.imageRef, image.Id, image.Config.User ?? '');
      await this.ensureFolder(req.appId, req.diskMb || DEFAULT_DISK_MB, emit);
      // Seeding overlaps what comes next up to the container's start (network, create): it must be done only by then.
      const seeded = this.seedFolder(req.appId, image.Id, req.imageRef, mountPath, owner, emit).catch((e: unknown) => {
        if ((e as Error).message.includes('No space left on device')) {
          throw new AppError('rollout_failed', `The image's ${mountPath} does not fit in the project folder (${req.diskMb || DEFAULT_DISK_MB} MB): give the app more disk`);
        }
        throw this.explained(e, 'folder', req, emit);
      });
      // Awaited before the start; a failure of a step meanwhile must not leave its rejection unhandled.
      seeded.catch(() => undefined);

      step = 'container';
      // A release of the app still inside its settle window becomes an ordinary container: this rollout decides.
      await this.windows.cancel(req.appId);
      // A retried rollout starts over: the container of an earlier try of this deployment goes first (while the
      // workspace network is looked up).
      step = 'network';
      const [networkId] = await Promise.all([
        this.containers.networks.ensure(req.workspaceId),
        this.containers.list({ [LABELS.app]: req.appId, [LABELS.deployment]: req.deploymentId }).then((ids) => this.containers.remove(ids)),
      ]);
      step = 'container';
      const hostPort = req.port ? await freeHostPort() : 0;
      const spec: ContainerSpec = {
        name: `slipway-app-${req.deploymentId}`,
        image: req.imageRef,
        workspaceId: req.workspaceId,
        labels: { [LABELS.app]: req.appId, [LABELS.deployment]: req.deploymentId },
        env: { ...(req.port ? { PORT: String(req.port) } : {}), ...req.env },
        limits: { cpuMillis: req.cpuMillis, memoryMb: req.memoryMb },
        mounts: [{ hostPath: this.folderOf(req.appId), containerPath: mountPath }],
        readOnlyRoot: true,
        tmpfs: { '/tmp': this.limits.tmpMb },
        port: req.port ? { container: req.port, host: hostPort } : null,
      };
      const containerId = await this.containers.launch(spec, networkId, () => seeded);
      // The app's other containers (the ones retired once the route moves), listed while the new one starts.
      const others = this.containers.list({ [LABELS.app]: req.appId });
      others.catch(() => undefined);
      emit(`Container ${containerId.slice(0, 12)} created`);
      // Web apps are reached through Caddy's HTTP reverse proxy, so they must speak HTTP: any response will do, or
      // 2xx/3xx on the health path. A worker only has to keep running for the settle window.
      const windowMs = this.limits.readySettleMs;
      const probe = req.port ? ({ kind: 'http', port: req.port, healthPath: req.healthPath } as const) : null;
      const proven = req.maySkipSettle === true && windowMs > 0 && this.windows.isProven(image.Id);
      // Warm (decision 0038): a web app whose route serves a running container of an earlier release takes the route as
      // soon as it answers, that container kept behind it until the window has passed. A web app of which nothing runs
      // behind its route (a first release, a stopped or crashed app) takes it at the first answer too and keeps it while
      // the window is judged here: nothing served before, so nothing is lost; one that fails in the window is taken out
      // again. A worker, or a running release under an older control plane (no `warm_previous`): the window first.
      const windowed = windowMs > 0 && !proven && !!req.routeHost && !!req.port;
      const serving = windowed ? await this.servingContainer(req.appId, containerId) : null;
      let fallback = req.warmPrevious ? serving : null;
      const early = windowed && !serving ? { before: this.ingress.routeOf(req.appId) } : null;
      if (req.port) emit(`Waiting for the app to answer HTTP on port ${req.port} (GET ${req.healthPath || '/'}${req.healthPath ? ', 2xx/3xx' : ', any status'})`);
      else emit(`Waiting ${Math.round(windowMs / 100) / 10} s for the container to keep running`);
      if (proven) emit(`Image ${image.Id.slice(0, 19)} already passed a settle window on this server: no settle window for this rollback`);
      const readiness = { probe, timeoutMs: req.readyTimeoutMs, settleMs: windowMs, hostPort };
      await this.containers.ready(containerId, { ...readiness, settleMs: fallback || proven || early ? 0 : windowMs }, emit, { arm: !fallback && !early });
      // The previous container may have gone while the new one started: then the window is held before the switch.
      if (fallback && !(await this.stillRuns(fallback.containerId))) {
        fallback = null;
        emit(`The previous container is no longer running: the new one must keep running and answering for ${seconds(windowMs)} first`);
        await this.containers.ready(containerId, readiness, emit);
      }
      if (early) await this.serveEarly(req, hostPort, early.before, () => this.containers.ready(containerId, readiness, emit), emit);
      emit('The app is ready');
      const previous = (await others).filter((id) => id !== containerId && id !== fallback?.containerId);
      step = 'route';
      if (req.routeHost && req.port && !early) {
        await this.ingress.put({ appId: req.appId, host: req.routeHost, upstreamPort: hostPort }, fallback?.hostPort);
        emit(
          fallback
            ? `Route ${req.routeHost} → the new container; the previous one (deployment ${fallback.deploymentId}) stays behind it until it has kept running and answering for ${seconds(windowMs)}`
            : `Route ${req.routeHost} → the new container`,
        );
      }
      if (previous.length) {
        emit(`Stopping the previous container${previous.length > 1 ? 's' : ''} (SIGTERM, ${Math.round(req.stopGraceMs / 1000)} s grace)`);
        // In the background: the new container serves already, and an app that ignores SIGTERM holds no one up.
        void this.containers.retire(previous, req.stopGraceMs);
      }
      if (fallback) {
        this.windows.start(
          { appId: req.appId, deploymentId: req.deploymentId, containerId, hostPort, routeHost: req.routeHost, imageId: image.Id, stopGraceMs: req.stopGraceMs, fallback },
          readiness,
        );
      } else if (!proven && windowMs > 0) {
        await this.windows.remember(image.Id);
      }
      await this.imageGate.removal(async () => {
        for (const ref of req.pruneImageRefs) if (await this.docker.removeImage(ref)) emit(`Image ${ref} pruned`);
      });
      return { imageId: image.Id, imageRef: req.imageRef, containerId, hostPort, settleMs: fallback ? windowMs : 0 };
    } catch (e) {
      if (bridged) await this.unbridge(req, bridged, emit);
      throw this.explained(e, step, req, emit);
    }
  }

  /**
   * A rollback to the release kept warm behind the route (the previous one, inside the current release's settle
   * window: decision 0038) takes the route back to that container at once, the current release behind it as the
   * fallback, while its own container starts; the rollout then moves the route to that one as any rollout does and
   * retires both. Only when the warm container runs the very image and environment the rollback's container gets
   * (same answers): otherwise, or without a window, null and nothing changed. The window is closed first (its verdict
   * must not move the route or retire the warm container meanwhile).
   */
  private async bridge(req: RolloutInput, image: { Id: string; Config: { Env?: string[] | null } }, emit: Emit): Promise<SettleWindow | null> {
    if (!req.routeHost || !req.port || !this.windows.current(req.appId)) return null;
    const window = await this.windows.cancel(req.appId);
    if (!window) return null;
    const warm = await this.docker.inspectContainer(window.fallback.containerId).catch(() => null);
    const wanted = { ...(req.port ? { PORT: String(req.port) } : {}), ...req.env };
    if (!warm?.State.Running || warm.Image !== image.Id || !sameEnvironment(warm.Config.Env ?? [], image.Config.Env ?? [], wanted)) return null;
    await this.ingress.put({ appId: req.appId, host: req.routeHost, upstreamPort: window.fallback.hostPort }, window.hostPort);
    emit(`Route ${req.routeHost} → the container of deployment ${window.fallback.deploymentId} (this image and environment, still running warm) while this rollback's container starts`);
    return window;
  }

  /** A rollout that bridged failed: the route goes back to the release it was rolling back from. */
  private async unbridge(req: RolloutInput, bridged: SettleWindow, emit: Emit): Promise<void> {
    try {
      if (await this.stillRuns(bridged.containerId)) {
        await this.ingress.put({ appId: req.appId, host: bridged.routeHost, upstreamPort: bridged.hostPort });
        emit(`Route ${bridged.routeHost} → the container of deployment ${bridged.deploymentId} again`);
      }
    } catch (e) {
      this.logger.warn({ appId: req.appId, err: (e as Error).message }, 'could not route back after a failed rollback');
    }
  }

  /**
   * The running container of an earlier release of the app that its route serves now (by its published port), or
   * null: the one to keep warm behind a new release.
   */
  private async servingContainer(appId: string, exclude: string): Promise<Fallback | null> {
    const route = this.ingress.routeOf(appId);
    if (!route?.upstreamPort) return null;
    const list = await this.docker.containersWith([`${LABELS.app}=${appId}`]);
    // The route's first upstream, or its fallback when the first is dead (a release that failed its settle window
    // whose route has not been narrowed back yet: the fallback is what serves).
    for (const port of [route.upstreamPort, route.fallbackPort]) {
      const c = port ? list.find((x) => x.Id !== exclude && x.State === 'running' && x.Labels?.[LABELS.deployment] && x.Ports?.some((p) => p.PublicPort === port)) : undefined;
      if (c) return { containerId: c.Id, deploymentId: c.Labels[LABELS.deployment]!, hostPort: port! };
    }
    return null;
  }

  /**
   * A release of an app with nothing serving behind its route: the route moves to it at its first answer (`hostPort`),
   * then `window` judges it there. If the window fails, the route goes back to what it was (`before`: none, or a
   * container that no longer runs) before the failure is thrown, so a release that failed never keeps a route.
   */
  private async serveEarly(req: RolloutInput, hostPort: number, before: AppRoute | null, window: () => Promise<void>, emit: Emit): Promise<void> {
    const host = req.routeHost!;
    await this.ingress.put({ appId: req.appId, host, upstreamPort: hostPort });
    emit(`Route ${host} → the new container at its first answer; it must keep running and answering for ${seconds(this.limits.readySettleMs)} (its settle window)`);
    try {
      await window();
    } catch (e) {
      const back = before ? this.ingress.put({ appId: before.appId, host: before.host, upstreamPort: before.upstreamPort }) : this.ingress.remove(req.appId);
      await back.catch((err: Error) => this.logger.warn({ appId: req.appId, err: err.message }, 'the route of a release that failed its settle window could not be taken back (the watchdog retries)'));
      emit("Taken out of the route: it did not pass its settle window");
      throw e;
    }
  }

  private async stillRuns(id: string): Promise<boolean> {
    return (await this.containers.exitReason(id).catch(() => 'unknown')) === null;
  }

  /** The container is a release inside its settle window (or failed in it just now): its judge is the window. */
  settling(containerId: string, appId: string): boolean {
    return this.windows.judges(containerId, appId);
  }

  /** The listing of managed containers with what the settle windows know (ListManagedContainers). */
  decorate(list: ManagedContainer[]): Promise<ManagedContainer[]> {
    return this.windows.decorate(list);
  }

  /**
   * An AppError passes as it is; anything else (the engine's or Caddy's refusal) becomes a sentence about the app,
   * and its own message goes to the deployment log and the agent's log.
   */
  private explained(e: unknown, step: RolloutStep, req: { appId: string; deploymentId: string }, emit: Emit): unknown {
    // An AppError is already what the user reads; an engine that cannot be reached is node_unavailable (rpc/errors.ts).
    if (e instanceof AppError || engineUnreachable(e)) return e;
    const message = engineMessage(e);
    emit(`The server answered: ${message}`);
    this.logger.warn({ appId: req.appId, deploymentId: req.deploymentId, step, err: message }, 'rollout step failed');
    return rolloutFailure(step, message);
  }

  // ---------------------------------------------------------------------------------------------- folders

  /**
   * The project folder at the deployment's disk size: made when missing, grown when smaller. A server that cannot
   * grow a folder in use (no CAP_SYS_RESOURCE) stops the app's running container first: a size increase costs a
   * short stop there, and the new container starts on the grown folder.
   */
  private async ensureFolder(appId: string, asked: number, emit: Emit): Promise<void> {
    const before = await this.storage.usage(appId);
    // Never shrunk: a smaller size (an older control plane's default) keeps the folder as it is.
    const diskMb = Math.max(asked, before?.limitMb ?? 0);
    try {
      await this.storage.create(appId, diskMb);
    } catch (e) {
      if (!(e instanceof FolderBusyError)) throw e;
      emit(`Stopping the running container to grow the project folder to ${diskMb} MB`);
      await this.containers.remove(await this.containers.list({ [LABELS.app]: appId }));
      await this.ingress.remove(appId);
      await this.storage.create(appId, diskMb);
    }
    if (!before) emit(`Project folder made: ${diskMb} MB`);
    else if (before.limitMb < diskMb) emit(`Project folder grown from ${before.limitMb} to ${diskMb} MB, its files kept`);
  }

  /**
   * Copies the image's content of the mount path into the project folder when the image differs from the one that
   * last seeded it: files of the image overwrite, other files stay, nothing is deleted. The folder and what was
   * seeded belong to the user the container runs as.
   */
  private async seedFolder(appId: string, imageId: string, imageRef: string, mountPath: string, owner: { uid: number; gid: number }, emit: Emit): Promise<void> {
    const folder = this.folderOf(appId);
    await mkdir(folder, { recursive: true, mode: 0o755 });
    await chown(folder, owner.uid, owner.gid);
    const meta = await readFile(this.metaOf(appId), 'utf8').then((t) => JSON.parse(t) as { seededImageId?: string }, () => ({}) as { seededImageId?: string });
    if (meta.seededImageId === imageId) return;
    const kept = await this.seeds.get(imageId, mountPath);
    if (kept) await untar(createReadStream(kept), folder);
    else {
      await this.docker.readFromImage(imageRef, mountPath, { [LABELS.workspace]: HELPER, [LABELS.app]: appId }, async (tar) => {
        if (tar) await this.seeds.fill(imageId, mountPath, tar, (archive) => untar(archive, folder));
      });
    }
    await chownTree(folder, owner);
    await mkdir(path.dirname(this.metaOf(appId)), { recursive: true, mode: 0o700 });
    await writeFile(`${this.metaOf(appId)}.tmp`, JSON.stringify({ seededImageId: imageId, at: new Date().toISOString() }));
    await rename(`${this.metaOf(appId)}.tmp`, this.metaOf(appId));
    emit(`Project folder seeded from the image's ${mountPath}${kept ? " (this server's copy of it)" : ''}`);
  }

  /**
   * `resolveUser`, remembered per image id and USER (an image's files never change; a name costs two throw-away
   * containers, on every rollout's path otherwise).
   */
  private async ownerOf(imageRef: string, imageId: string, user: string): Promise<{ uid: number; gid: number }> {
    const key = `${imageId} ${user}`;
    const known = this.owners.get(key);
    if (known) return known;
    const { uid, gid, lookedUp } = await this.resolveUser(imageRef, user);
    const owner = { uid, gid };
    // A name the image's files did not answer (a read that failed) is asked again next time.
    if (lookedUp) {
      if (this.owners.size >= OWNERS_KEPT) this.owners.delete(this.owners.keys().next().value!);
      this.owners.set(key, owner);
    }
    return owner;
  }

  private readonly owners = new Map<string, { uid: number; gid: number }>();

  /** uid:gid of the image's USER (a name is looked up in the image's /etc/passwd); root when unset. */
  private async resolveUser(imageRef: string, user: string): Promise<{ uid: number; gid: number; lookedUp: boolean }> {
    if (!user) return { uid: 0, gid: 0, lookedUp: true };
    let lookedUp = true;
    const [name, group] = user.split(':');
    const numeric = (s: string | undefined) => (s !== undefined && /^\d+$/.test(s) ? Number(s) : null);
    let uid = numeric(name);
    let gid = numeric(group);
    if (uid === null || (group !== undefined && gid === null)) {
      const [passwd, groups] = await Promise.all([this.readImageFile(imageRef, '/etc/passwd'), this.readImageFile(imageRef, '/etc/group')]);
      const entry = passwd.split('\n').map((l) => l.split(':')).find((f) => f[0] === name || f[2] === name);
      lookedUp = passwd !== '' && (group === undefined || groups !== '');
      if (uid === null) uid = entry ? Number(entry[2]) : 0;
      if (gid === null) gid = group !== undefined ? Number(groups.split('\n').map((l) => l.split(':')).find((f) => f[0] === group)?.[2] ?? 0) : entry ? Number(entry[3]) : 0;
    }
    return { uid, gid: gid ?? uid, lookedUp };
  }

  private async readImageFile(imageRef: string, file: string): Promise<string> {
    return this.docker
      .readFromImage(imageRef, file, { [LABELS.workspace]: HELPER }, async (archive) => {
        if (!archive) return '';
        const chunks: Buffer[] = [];
        for await (const c of archive) chunks.push(c as Buffer);
        const tar = Buffer.concat(chunks);
        const size = parseInt(tar.subarray(124, 136).toString('ascii').replace(/\0.*$/, '').trim() || '0', 8);
        return tar.subarray(512, 512 + size).toString('utf8');
      })
      .catch(() => '');
  }

  // -------------------------------------------------------------------------------------- power, removal

  async power(req: AppPowerInput): Promise<void> {
    // A release inside its settle window becomes an ordinary container; its warm predecessor goes.
    const open = await this.windows.cancel(req.appId);
    if (open) void this.containers.retire([open.fallback.containerId], req.stopGraceMs);
    const gone = (e: unknown) => {
      if (e instanceof AppError && e.code === 'not_found') throw new AppError('not_found', 'The container of the current deployment is gone');
      throw e;
    };
    if (req.action === 'stop') {
      await this.ingress.remove(req.appId);
      await this.containers.stop(req.containerId, req.stopGraceMs).catch(gone);
      return;
    }
    if (req.action === 'start') await this.containers.start(req.containerId).catch(gone);
    else await this.containers.restart(req.containerId, req.stopGraceMs).catch(gone);
    if (req.route) await this.ingress.put(req.route);
  }

  /** The app's route, containers, image tags and folder; containers and tags in parallel within the agent's removal bound. */
  async removeApp(req: { workspaceId: string; appId: string }): Promise<{ containers: number; images: number }> {
    await this.windows.cancel(req.appId);
    await this.ingress.remove(req.appId);
    const containers = await this.containers.list({ [LABELS.app]: req.appId });
    await this.removals.each(containers, (id) => this.docker.removeContainer(id).catch(() => undefined));
    const images = await this.removeImages([req.appId]);
    await this.removals.each([req.appId], (appId) => this.removeFolder(appId));
    return { containers: containers.length, images };
  }

  /**
   * Every image tag of these apps, in parallel within the removal bound, behind the image gate (builds first), and
   * their BuildKit cache records (a failure there is logged: BuildKit's own collection reclaims them later).
   */
  async removeImages(appIds: string[]): Promise<number> {
    let removed = 0;
    await this.imageGate.removal(async () => {
      const tags = await this.docker.imageTags(appIds.map(appRepository));
      removed = (await this.removals.each(tags, (tag) => this.docker.removeImage(tag))).filter(Boolean).length;
      await this.buildCaches?.remove(appIds).catch((e: Error) => this.logger.warn({ appIds: appIds.length, err: e.message }, 'could not remove build caches'));
    });
    return removed;
  }

  // ------------------------------------------------------------------------------------------- moves (issue 32)

  /**
   * The project folder as a tar stream (numeric owners, modes, times, links as links); null when this server has no
   * folder for the app. The archive's entries are relative (`./…`).
   */
  async exportFolder(appId: string): Promise<AsyncIterable<Buffer> | null> {
    const folder = this.folderOf(appId);
    await this.storage.ready(appId);
    if (!(await stat(folder).then(() => true, () => false))) return null;
    const tar = spawn('tar', ['-c', '--numeric-owner', '-C', folder, '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    tar.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number>((resolve, reject) => {
      tar.on('error', reject);
      tar.on('close', (code) => resolve(code ?? -1));
    });
    return (async function* () {
      try {
        for await (const data of tar.stdout as AsyncIterable<Buffer>) yield data;
        const code = await exited;
        // tar's exit 1 is "a file changed while it was read" (the app runs): the catch-up copy during the stop takes it again.
        if (code !== 0 && code !== 1) throw new Error(`tar failed (${code}): ${stderr.trim()}`);
      } finally {
        if (tar.exitCode === null) tar.kill();
      }
    })();
  }

  /**
   * Unpacks a tar of `exportFolder` (a file) into the app's project folder, made at `diskMb` when missing: files of the
   * tar replace, others stay. `seededImageRef`'s image is recorded as the one that seeded the folder, so the rollout
   * of that image does not seed over the copied files.
   */
  async importFolder(appId: string, diskMb: number, seededImageRef: string, tarFile: string): Promise<void> {
    const folder = this.folderOf(appId);
    await this.storage.ready(appId);
    // Made only when missing: the catch-up copy lands in the folder the target's container already uses.
    if (!(await stat(folder).then(() => true, () => false))) await this.ensureFolder(appId, diskMb, () => undefined);
    await new Promise<void>((resolve, reject) => {
      const tar = spawn('tar', ['-x', '--numeric-owner', '--same-owner', '-p', '--overwrite', '-C', folder, '-f', tarFile], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      tar.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      tar.on('error', reject);
      tar.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tar failed (${code}): ${stderr.trim()}`))));
    });
    const imageId = seededImageRef ? await this.docker.imageId(seededImageRef) : null;
    if (imageId) {
      await mkdir(path.dirname(this.metaOf(appId)), { recursive: true, mode: 0o700 });
      await writeFile(`${this.metaOf(appId)}.tmp`, JSON.stringify({ seededImageId: imageId, at: new Date().toISOString(), movedIn: true }));
      await rename(`${this.metaOf(appId)}.tmp`, this.metaOf(appId));
    }
  }

  /**
   * After a reboot the Docker engine starts the apps' containers (restart policy) before the agent has mounted their
   * project folders: a container started then binds the bare mount point (empty, immutable) and never sees the mount
   * made later (bind mounts do not follow it): it serves nothing of the folder, or crashes again and again when its
   * code lives there. Once its folder is mounted, each of the app's containers running (or restarting) since before
   * `mountedAtMs` is restarted, so it runs on its files again. Answers how many were restarted.
   */
  async folderMounted(appId: string, mountedAtMs: number): Promise<number> {
    let restarted = 0;
    for (const id of await this.containers.list({ [LABELS.app]: appId })) {
      const state = await this.docker.containerState(id).catch(() => null);
      if (!(state?.Running || state?.Restarting) || Date.parse(state.StartedAt) >= mountedAtMs) continue;
      await this.containers.restart(id, FOLDER_RESTART_GRACE_MS);
      restarted += 1;
    }
    if (restarted) this.logger.info({ appId, restarted }, 'containers started before their project folder was mounted restarted on it');
    return restarted;
  }

  /** The app's project folder and the record of what seeded it. */
  async removeFolder(appId: string): Promise<void> {
    await this.storage.remove(appId);
    await rm(this.metaOf(appId), { force: true });
  }
}

/** A container that ran on the bare mount point of its folder served nothing of it: a short grace is enough. */
const FOLDER_RESTART_GRACE_MS = 2_000;

const firstLine = (s: string) => s.split('\n')[0] ?? s;

/**
 * Whether a container's environment (`Config.Env`: the image's, overridden by what it was created with) is the one a
 * container of this image created with `wanted` gets.
 */
export function sameEnvironment(containerEnv: string[], imageEnv: string[], wanted: Record<string, string>): boolean {
  const parse = (list: string[]) =>
    new Map(
      list.map((e) => {
        const i = e.indexOf('=');
        return i < 0 ? [e, ''] : [e.slice(0, i), e.slice(i + 1)];
      }),
    );
  const expected = parse(imageEnv);
  for (const [k, v] of Object.entries(wanted)) expected.set(k, v);
  const actual = parse(containerEnv);
  return actual.size === expected.size && [...expected].every(([k, v]) => actual.get(k) === v);
}

/** Extracts a tar stream into `dir`, stripping the archive's top folder; files overwrite, nothing is deleted. */
function untar(archive: Readable, dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const tar = spawn('tar', ['-x', '-C', dir, '--strip-components=1', '--overwrite'], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    tar.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    tar.on('error', reject);
    tar.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tar failed (${code}): ${stderr.trim()}`))));
    archive.on('error', reject);
    archive.pipe(tar.stdin);
  });
}

function chownTree(dir: string, owner: { uid: number; gid: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn('chown', ['-R', '--no-dereference', `${owner.uid}:${owner.gid}`, '--', dir], { stdio: 'ignore' });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`chown failed (${code})`))));
  });
}
