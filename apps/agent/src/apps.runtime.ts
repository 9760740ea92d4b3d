import { spawn } from 'node:child_process';
import { mkdir, readFile, rename, rm, writeFile, chown } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { AppError, LABELS, type AppPowerInput, type DeployResult, type Logger, type PrepareImageInput, type RolloutInput } from '@slipway/core';
import type Docker from 'dockerode';
import type { CaddyIngress } from './caddy.ingress';

/** One user-defined bridge per workspace: its apps and databases, and nothing else, share it. */
export const workspaceNetwork = (workspaceId: string) => `slipway-ws-${workspaceId}`;
/** The repository of an app's deployment tags (slipway-app/<appId>:<deploymentId>). */
const appRepository = (appId: string) => `slipway-app/${appId}`;
const PIDS_LIMIT = 512;
const LAST_LINES = 20;

type Emit = (line: string) => void;

/**
 * App containers on this server: image preparation (the build phase of image apps), rollouts with a readiness check
 * before the route moves, start/stop/restart, and removal of everything an app left. Project folders live at
 * `<dataDir>/volumes/<appId>`; which image last seeded a folder is recorded outside it, in `volumes/.meta/<appId>.json`.
 */
export class AppsRuntime {
  constructor(
    private readonly docker: Docker,
    private readonly ingress: CaddyIngress,
    private readonly dataDir: string,
    private readonly logger: Logger,
  ) {}

  folderOf(appId: string): string {
    return path.join(this.dataDir, 'volumes', appId);
  }

  private metaOf(appId: string): string {
    return path.join(this.dataDir, 'volumes', '.meta', `${appId}.json`);
  }

  // ------------------------------------------------------------------------------------------------ images

  async prepareImage(req: PrepareImageInput, emit: Emit): Promise<DeployResult> {
    const imageRef = `${appRepository(req.appId)}:${req.deploymentId}`;
    let source = req.image;
    if (req.localOnly) {
      if (!(await this.imageId(source))) throw new AppError('image_unavailable', 'The image of that deployment is no longer on this server');
      emit(`Image ${source} is on this server`);
    } else {
      emit(`Pulling ${source}`);
      try {
        await this.pull(source, emit);
        emit(`Pulled ${source}`);
      } catch (e) {
        const local = await this.imageId(source);
        if (!local) throw new AppError('rollout_failed', `The image ${source} could not be pulled and is not on this server: ${(e as Error).message}`);
        emit(`No registry answered (${firstLine((e as Error).message)}); using the image present on this server`);
        source = local;
      }
    }
    const id = await this.imageId(source);
    if (!id) throw new AppError('rollout_failed', `The image ${source} is not on this server`);
    await this.docker.getImage(id).tag({ repo: appRepository(req.appId), tag: req.deploymentId });
    emit(`Image ${id.slice(0, 19)} tagged ${imageRef}`);
    return { imageId: id, imageRef, containerId: '', hostPort: 0 };
  }

  private async pull(image: string, emit: Emit): Promise<void> {
    const stream = (await this.docker.pull(image)) as Readable;
    const seen = new Set<string>();
    await new Promise<void>((resolve, reject) =>
      this.docker.modem.followProgress(
        stream,
        (err: Error | null, out: { error?: string }[]) => {
          const failed = out?.find((o) => o.error);
          if (err || failed) reject(err ?? new Error(failed!.error));
          else resolve();
        },
        (e: { status?: string; id?: string; progress?: string }) => {
          // Progress bars repeat; one line per layer and status is enough for the log.
          const line = [e.id, e.status].filter(Boolean).join(': ');
          if (line && !seen.has(line)) {
            seen.add(line);
            emit(line);
          }
        },
      ),
    );
  }

  private async imageId(ref: string): Promise<string | null> {
    try {
      return (await this.docker.getImage(ref).inspect()).Id;
    } catch (e) {
      if ((e as { statusCode?: number }).statusCode === 404) return null;
      throw e;
    }
  }

  // ----------------------------------------------------------------------------------------------- rollout

  async rollout(req: RolloutInput, emit: Emit): Promise<DeployResult> {
    const image = await this.docker.getImage(req.imageRef).inspect();
    const network = await this.ensureNetwork(req.workspaceId);
    const mountPath = image.Config.WorkingDir && image.Config.WorkingDir !== '/' ? image.Config.WorkingDir : '/app';
    const owner = await this.resolveUser(req.imageRef, image.Config.User ?? '');
    await this.seedFolder(req.appId, image.Id, req.imageRef, mountPath, owner, emit);

    // A retried rollout starts over: the container of an earlier try of this deployment goes first.
    for (const c of await this.containersOf(req.appId, req.deploymentId)) await this.docker.getContainer(c.Id).remove({ force: true });
    const hostPort = req.port ? await freePort() : 0;
    const env = { ...(req.port ? { PORT: String(req.port) } : {}), ...req.env };
    const container = await this.docker.createContainer({
      name: `slipway-app-${req.deploymentId}`,
      Image: req.imageRef,
      Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
      Labels: { [LABELS.workspace]: req.workspaceId, [LABELS.app]: req.appId, [LABELS.deployment]: req.deploymentId },
      ExposedPorts: req.port ? { [`${req.port}/tcp`]: {} } : undefined,
      HostConfig: {
        NanoCpus: req.cpuMillis * 1_000_000,
        Memory: req.memoryMb * 1024 * 1024,
        MemorySwap: req.memoryMb * 1024 * 1024,
        PidsLimit: PIDS_LIMIT,
        Privileged: false,
        CapDrop: ['ALL'],
        CapAdd: ['NET_BIND_SERVICE'],
        SecurityOpt: ['no-new-privileges:true'],
        Binds: [`${this.folderOf(req.appId)}:${mountPath}`],
        NetworkMode: network,
        // A fixed host port (chosen here) survives restarts; only 127.0.0.1: Caddy is the way in.
        PortBindings: req.port ? { [`${req.port}/tcp`]: [{ HostIp: '127.0.0.1', HostPort: String(hostPort) }] } : undefined,
        RestartPolicy: { Name: 'unless-stopped', MaximumRetryCount: 0 },
        LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '3' } },
      },
    });
    emit(`Container ${container.id.slice(0, 12)} created`);
    await container.start();
    if (req.port) {
      emit(`Waiting for the app to answer on port ${req.port}${req.healthPath ? ` (GET ${req.healthPath})` : ''}`);
      const problem = await this.waitReady(container, hostPort, req.healthPath, req.readyTimeoutMs);
      if (problem) {
        const tail = await this.lastLines(container.id, LAST_LINES);
        await container.remove({ force: true }).catch(() => undefined);
        throw new AppError('rollout_failed', [problem, 'Last log lines:', ...tail].join('\n'));
      }
      emit('The app answers');
    }
    const previous = (await this.containersOf(req.appId)).filter((c) => c.Id !== container.id);
    if (req.routeHost && req.port) {
      await this.ingress.put({ appId: req.appId, host: req.routeHost, upstreamPort: hostPort });
      emit(`Route ${req.routeHost} → the new container`);
    }
    if (previous.length) {
      emit(`Stopping the previous container (SIGTERM, ${Math.round(req.stopGraceMs / 1000)} s grace)`);
      // In the background: the new container serves already, and an app that ignores SIGTERM holds no one up.
      void this.retire(previous.map((c) => c.Id), req.stopGraceMs);
    }
    for (const ref of req.pruneImageRefs) {
      await this.docker
        .getImage(ref)
        .remove()
        .then(() => emit(`Image ${ref} pruned`))
        .catch(() => undefined);
    }
    return { imageId: image.Id, imageRef: req.imageRef, containerId: container.id, hostPort };
  }

  private async retire(ids: string[], graceMs: number): Promise<void> {
    for (const id of ids) {
      const c = this.docker.getContainer(id);
      try {
        await c.stop({ t: Math.ceil(graceMs / 1000) }).catch((e: { statusCode?: number }) => {
          if (e.statusCode !== 304) throw e;
        });
        await c.remove({ force: true });
      } catch (e) {
        this.logger.warn({ container: id, err: (e as Error).message }, 'could not retire a previous container');
      }
    }
  }

  /** null once the container answers; otherwise why it never did. */
  private async waitReady(container: Docker.Container, hostPort: number, healthPath: string, timeoutMs: number): Promise<string | null> {
    const end = Date.now() + timeoutMs;
    let lastInspect = 0;
    while (Date.now() < end) {
      if (await (healthPath ? httpOk(hostPort, healthPath) : tcpAnswers(hostPort))) return null;
      if (Date.now() - lastInspect > 300) {
        lastInspect = Date.now();
        const state = (await container.inspect()).State;
        if (!state.Running && !state.Restarting) return `The container exited with code ${state.ExitCode} before it answered`;
        if (state.Restarting || state.ExitCode) return `The container exited with code ${state.ExitCode} before it answered`;
      }
      await sleep(50);
    }
    return `The app did not answer on its port within ${Math.round(timeoutMs / 1000)} s${healthPath ? ` (GET ${healthPath})` : ''}`;
  }

  // ---------------------------------------------------------------------------------------------- folders

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
    const tmp = await this.docker.createContainer({ Image: imageRef, Entrypoint: ['/nonexistent'], Labels: { [LABELS.workspace]: 'seed', [LABELS.app]: appId } });
    try {
      const archive = (await tmp.getArchive({ path: mountPath })) as unknown as Readable;
      await untar(archive, folder);
    } catch (e) {
      if ((e as { statusCode?: number }).statusCode !== 404) throw e;
    } finally {
      await tmp.remove({ force: true }).catch(() => undefined);
    }
    await chownTree(folder, owner);
    await mkdir(path.dirname(this.metaOf(appId)), { recursive: true, mode: 0o700 });
    await writeFile(`${this.metaOf(appId)}.tmp`, JSON.stringify({ seededImageId: imageId, at: new Date().toISOString() }));
    await rename(`${this.metaOf(appId)}.tmp`, this.metaOf(appId));
    emit(`Project folder seeded from the image's ${mountPath}`);
  }

  /** uid:gid of the image's USER (a name is looked up in the image's /etc/passwd); root when unset. */
  private async resolveUser(imageRef: string, user: string): Promise<{ uid: number; gid: number }> {
    if (!user) return { uid: 0, gid: 0 };
    const [name, group] = user.split(':');
    const numeric = (s: string | undefined) => (s !== undefined && /^\d+$/.test(s) ? Number(s) : null);
    let uid = numeric(name);
    let gid = numeric(group);
    if (uid === null || (group !== undefined && gid === null)) {
      const passwd = await this.readImageFile(imageRef, '/etc/passwd');
      const groups = await this.readImageFile(imageRef, '/etc/group');
      const entry = passwd.split('\n').map((l) => l.split(':')).find((f) => f[0] === name || f[2] === name);
      if (uid === null) uid = entry ? Number(entry[2]) : 0;
      if (gid === null) gid = group !== undefined ? Number(groups.split('\n').map((l) => l.split(':')).find((f) => f[0] === group)?.[2] ?? 0) : entry ? Number(entry[3]) : 0;
    }
    return { uid, gid: gid ?? uid };
  }

  private async readImageFile(imageRef: string, file: string): Promise<string> {
    const tmp = await this.docker.createContainer({ Image: imageRef, Entrypoint: ['/nonexistent'], Labels: { [LABELS.workspace]: 'seed' } });
    try {
      const archive = (await tmp.getArchive({ path: file })) as unknown as Readable;
      const chunks: Buffer[] = [];
      for await (const c of archive) chunks.push(c as Buffer);
      const tar = Buffer.concat(chunks);
      const size = parseInt(tar.subarray(124, 136).toString('ascii').replace(/\0.*$/, '').trim() || '0', 8);
      return tar.subarray(512, 512 + size).toString('utf8');
    } catch {
      return '';
    } finally {
      await tmp.remove({ force: true }).catch(() => undefined);
    }
  }

  // -------------------------------------------------------------------------------------- power, removal

  async power(req: AppPowerInput): Promise<void> {
    const c = this.docker.getContainer(req.containerId);
    const ignore304 = (e: { statusCode?: number }) => {
      if (e.statusCode !== 304) throw e;
    };
    try {
      if (req.action === 'stop') {
        await this.ingress.remove(req.appId);
        await c.stop({ t: Math.ceil(req.stopGraceMs / 1000) }).catch(ignore304);
        return;
      }
      if (req.action === 'start') await c.start().catch(ignore304);
      else await c.restart({ t: Math.ceil(req.stopGraceMs / 1000) });
    } catch (e) {
      if ((e as { statusCode?: number }).statusCode === 404) throw new AppError('not_found', 'The container of the current deployment is gone');
      throw e;
    }
    if (req.route) await this.ingress.put(req.route);
  }

  async removeApp(req: { workspaceId: string; appId: string }): Promise<{ containers: number; images: number }> {
    await this.ingress.remove(req.appId);
    const containers = await this.containersOf(req.appId);
    for (const c of containers) await this.docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
    const images = await this.docker.listImages({ filters: { reference: [`${appRepository(req.appId)}:*`] } });
    let removed = 0;
    for (const img of images) {
      for (const tag of img.RepoTags ?? []) {
        if (!tag.startsWith(`${appRepository(req.appId)}:`)) continue;
        await this.docker.getImage(tag).remove().then(() => removed++, () => undefined);
      }
    }
    await rm(this.folderOf(req.appId), { recursive: true, force: true });
    await rm(this.metaOf(req.appId), { force: true });
    return { containers: containers.length, images: removed };
  }

  async lastLines(containerId: string, n: number): Promise<string[]> {
    try {
      const buf = (await this.docker.getContainer(containerId).logs({ stdout: true, stderr: true, tail: n, follow: false })) as unknown as Buffer;
      return demux(buf).split('\n').filter((l) => l.length > 0).slice(-n);
    } catch {
      return [];
    }
  }

  private containersOf(appId: string, deploymentId?: string): Promise<Docker.ContainerInfo[]> {
    const label = [`${LABELS.app}=${appId}`];
    if (deploymentId) label.push(`${LABELS.deployment}=${deploymentId}`);
    return this.docker.listContainers({ all: true, filters: { label } }).then((list) => list.filter((c) => c.Labels?.[LABELS.workspace] !== 'seed'));
  }

  private async ensureNetwork(workspaceId: string): Promise<string> {
    const name = workspaceNetwork(workspaceId);
    try {
      await this.docker.getNetwork(name).inspect();
    } catch (e) {
      if ((e as { statusCode?: number }).statusCode !== 404) throw e;
      await this.docker.createNetwork({ Name: name, Driver: 'bridge', CheckDuplicate: true, Labels: { [LABELS.workspace]: workspaceId } }).catch((err: { statusCode?: number }) => {
        if (err.statusCode !== 409) throw err;
      });
    }
    return name;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const firstLine = (s: string) => s.split('\n')[0] ?? s;

/** A free TCP port on 127.0.0.1, for the container's fixed host port. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Whether something accepts connections behind 127.0.0.1:port. Docker's proxy accepts on the host port even when
 * nothing listens in the container, then closes at once; a connection that stays open for 150 ms is a listener.
 */
function tcpAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let done = false;
    const finish = (ok: boolean) => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => setTimeout(() => finish(true), 150));
    socket.once('error', () => finish(false));
    socket.once('close', () => finish(false));
    socket.once('end', () => finish(false));
    socket.setTimeout(1_000, () => finish(false));
  });
}

async function httpOk(port: number, p: string): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${p}`, { redirect: 'manual', signal: AbortSignal.timeout(1_000) });
    await res.arrayBuffer();
    return res.status >= 200 && res.status < 400;
  } catch {
    return false;
  }
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

/** Docker's multiplexed log frames (1 byte stream, 3 zero bytes, 4-byte length, payload) as text. */
function demux(buf: Buffer): string {
  const parts: Buffer[] = [];
  let i = 0;
  while (i + 8 <= buf.length) {
    const size = buf.readUInt32BE(i + 4);
    parts.push(buf.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}
