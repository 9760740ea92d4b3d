import { createHash } from 'node:crypto';
import { chmod, chown, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isDatabaseEngine, redact, validateCidrs, type DatabaseEngine } from '@slipway/contracts';
import { AppError, LABELS, type Logger } from '@slipway/core';
import type Docker from 'dockerode';
import type { DockerRuntime } from '../containers/docker.runtime';
import type { Containers } from '../containers/containers';
import { workspaceNetworkName } from '../containers/networks';
import type { Readiness } from '../containers/readiness';
import type { ContainerSpec } from '../containers/spec';
import { CONF_DIR, ENGINES, TLS_DIR, type Engine, type EngineContext } from './engines';
import { fsyncTree } from './fsync-tree';
import { PublicListeners } from './public-listener';

export const PUBLIC_PORTS = { min: 20_000, max: 20_999 } as const;
/** Extra labels of a database container (beside slipway.database / workspace / platform). */
const ENGINE_LABEL = 'slipway.database.engine';
const STOP_GRACE_MS = 30_000;
const READY_TIMEOUT_MS = 120_000;
/** The CPU a new database's first initialisation runs with (when its own limit is lower): one core. */
export const INIT_CPU_MILLIS = 1_000;

export interface PublicAccess {
  enabled: boolean;
  port: number;
  allowedCidrs: string[];
}

/** What EnsureDatabase asks for. */
export interface DatabaseRequest {
  databaseId: string;
  workspaceId: string;
  slug: string;
  engine: string;
  version: string;
  image: string;
  cpuMillis: number;
  memoryMb: number;
  diskMb: number;
  username: string;
  databaseName: string;
  password: string;
  public: PublicAccess;
  tls: { certPem: string; keyPem: string } | null;
  stopped: boolean;
}

/** What the agent keeps of a database (`databases/<id>/database.json`): everything but the password. */
interface StoredDatabase {
  databaseId: string;
  workspaceId: string;
  slug: string;
  engine: DatabaseEngine;
  version: string;
  image: string;
  cpuMillis: number;
  memoryMb: number;
  username: string;
  databaseName: string;
  public: PublicAccess;
  stopped: boolean;
}

export interface DatabaseStatus {
  databaseId: string;
  containerId: string;
  state: 'running' | 'stopped' | 'missing' | 'failed';
  internalHost: string;
  port: number;
  ipAddress: string;
  publicPort: number;
  image: string;
  message: string;
}

export interface DatabaseRuntimeOptions {
  dataDir: string;
  /** Image per engine (config SLIPWAY_IMAGE_*). */
  images: Record<DatabaseEngine, string>;
  /** The certificate served when a request brings none, and its CA (database-tls.ts: never the enrollment key). */
  tls: { certPem: string; keyPem: string; caPem: string };
  readyTimeoutMs?: number;
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const SLUG = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

const invalid = (message: string) => new AppError('validation_failed', message);

/**
 * Managed databases on this server: one container per database on its workspace's network (alias
 * `<slug>.internal`, no published port), its data in `databases/<id>/data`, its TLS material and config beside it,
 * and an optional public listener (public-listener.ts). Work on one database is serialized; the engine's state and
 * the `database.json` files are the record, so an agent restart finds everything again (`start()` reopens the
 * public listeners).
 */
export class DatabasesRuntime {
  readonly listeners: PublicListeners;
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly root: string;

  constructor(
    private readonly docker: DockerRuntime,
    private readonly containers: Containers,
    private readonly o: DatabaseRuntimeOptions,
    private readonly logger: Logger,
  ) {
    this.root = path.join(o.dataDir, 'databases');
    this.listeners = new PublicListeners(logger);
  }

  /** Reopens the public listeners of databases that should run (after an agent restart). */
  async start(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    for (const db of await this.stored()) {
      if (!db.public.enabled || db.stopped) continue;
      await this.openPublic(db).catch((err: unknown) => this.logger.error({ err, databaseId: db.databaseId, port: db.public.port }, 'could not reopen a database public port'));
    }
  }

  async stop(): Promise<void> {
    await this.listeners.closeAll();
  }

  images(): { engine: DatabaseEngine; image: string; port: number }[] {
    return (Object.keys(ENGINES) as DatabaseEngine[]).map((engine) => ({ engine, image: this.o.images[engine], port: ENGINES[engine].port }));
  }

  async imageAvailable(image: string): Promise<boolean> {
    return (await this.docker.inspectImage(image)) !== null;
  }

  caPem(): string {
    return this.o.tls.caPem;
  }

  // ------------------------------------------------------------------------------------------------ commands

  ensure(req: DatabaseRequest): Promise<DatabaseStatus> {
    const engine = this.validate(req);
    return this.locked(req.databaseId, () => this.ensureLocked(req, engine));
  }

  stopDatabase(databaseId: string): Promise<DatabaseStatus> {
    checkId(databaseId);
    return this.locked(databaseId, async () => {
      const db = await this.read(databaseId);
      const container = await this.container(databaseId);
      if (!db && !container) throw new AppError('not_found', `No database ${databaseId} on this server`);
      await this.listeners.close(databaseId);
      if (container) await this.containers.stop(container.Id, STOP_GRACE_MS);
      if (db) await this.write({ ...db, stopped: true });
      return this.status(databaseId);
    });
  }

  remove(databaseId: string): Promise<{ containerRemoved: boolean; dataRemoved: boolean }> {
    checkId(databaseId);
    return this.locked(databaseId, async () => {
      await this.listeners.close(databaseId);
      const ids = (await this.containersOf(databaseId)).map((c) => c.Id);
      await this.containers.remove(ids);
      const containerRemoved = ids.length > 0;
      const dir = this.dir(databaseId);
      const dataRemoved = await exists(dir);
      await rm(dir, { recursive: true, force: true });
      this.logger.info({ databaseId, containerRemoved, dataRemoved }, 'database removed from this server');
      return { containerRemoved, dataRemoved };
    });
  }

  /**
   * Runs `use` on the database's data folder (`databases/<id>/data`, which may not exist) under the database's lock, for
   * a move to or from another server (issue 32, docs/decisions/0037; the copying itself is apps/agent/src/moves'). Unless
   * `whileRunning`, refused with `refusal` while a container of the database runs here: a copy made is then the engine's
   * consistent state after a clean stop, and a folder replaced or patched is not one an engine uses.
   */
  withDataFolder<T>(databaseId: string, o: { whileRunning: boolean; refusal: string }, use: (data: string) => Promise<T>): Promise<T> {
    checkId(databaseId);
    return this.locked(databaseId, async () => {
      if (!o.whileRunning && (await this.container(databaseId))?.State === 'running') throw new AppError('invalid_state', o.refusal);
      return use(path.join(this.dir(databaseId), 'data'));
    });
  }

  /**
   * Has the running engine write what it holds in memory to its data folder (Engine.flush: PostgreSQL's CHECKPOINT),
   * before a move's pass while it runs. Best effort: false when the engine has no such command, does not run here, or
   * the command failed (the move goes on; its stop then writes more).
   */
  async flushData(databaseId: string): Promise<boolean> {
    checkId(databaseId);
    const db = await this.read(databaseId);
    const engine = db ? ENGINES[db.engine] : undefined;
    const container = await this.container(databaseId);
    if (!db || !engine?.flush || container?.State !== 'running') return false;
    const { password: _none, ...ctx } = contextOf(db, '');
    const r = await this.docker.exec(container.Id, { ...engine.flush(ctx), timeoutMs: 300_000 });
    if (r.exitCode !== 0) this.logger.warn({ databaseId, exitCode: r.exitCode, stderr: r.stderr.slice(0, 500) }, 'the engine did not flush before a move pass');
    return r.exitCode === 0;
  }

  /** Every database of a deleted workspace: container, public port and data (RemoveWorkspace). */
  async removeWorkspace(workspaceId: string): Promise<number> {
    const ids = (await this.list(workspaceId)).map((d) => d.databaseId);
    for (const id of ids) await this.remove(id);
    return ids.length;
  }

  rotatePassword(databaseId: string, currentPassword: string, newPassword: string): Promise<DatabaseStatus> {
    checkId(databaseId);
    if (!currentPassword || !newPassword) throw invalid('current_password and new_password are required');
    checkPassword(newPassword);
    return this.locked(databaseId, async () => {
      const db = await this.read(databaseId);
      const container = await this.container(databaseId);
      if (!db || !container) throw new AppError('not_found', `No database ${databaseId} on this server`);
      if (container.State !== 'running') throw new AppError('invalid_state', 'The database is not running: start it before rotating its password');
      const engine = ENGINES[db.engine];
      const ctx = contextOf(db, currentPassword);
      // A retry of a rotation that was applied before the agent could record it: the new password already works.
      const done = await this.accepts(container.Id, engine, { ...ctx, password: newPassword });
      for (const step of done ? [] : engine.rotate(ctx, newPassword)) {
        const r = await this.docker.exec(container.Id, { ...step, timeoutMs: 30_000 });
        if (r.exitCode !== 0 || (step.ok && !step.ok(r.stdout))) {
          throw new AppError('invalid_state', `The engine refused the new password: ${redact(`${r.stderr || r.stdout}`.trim(), [currentPassword, newPassword]).slice(0, 500)}`);
        }
      }
      // Config files holding the password (Redis) follow, so a restart keeps the new one.
      await this.writeConfig(db, engine, { ...ctx, password: newPassword });
      if (!(await this.accepts(container.Id, engine, { ...ctx, password: newPassword }))) throw new AppError('internal', 'The new password was set but the engine does not accept it');
      this.logger.info({ databaseId, engine: db.engine }, 'database password rotated');
      return this.status(databaseId);
    });
  }

  setPublicAccess(databaseId: string, access: PublicAccess): Promise<DatabaseStatus> {
    checkId(databaseId);
    const pub = checkPublic(access);
    return this.locked(databaseId, async () => {
      const db = await this.read(databaseId);
      if (!db) throw new AppError('not_found', `No database ${databaseId} on this server`);
      const next = { ...db, public: pub };
      if (pub.enabled && !db.stopped) await this.openPublic(next);
      else await this.listeners.close(databaseId);
      await this.write(next);
      return this.status(databaseId);
    });
  }

  async list(workspaceId = ''): Promise<
    { databaseId: string; workspaceId: string; slug: string; engine: string; containerId: string; state: string; hasData: boolean; publicPort: number; cpuMillis: number; memoryMb: number; image: string }[]
  > {
    const stored = new Map((await this.stored()).map((d) => [d.databaseId, d]));
    const containers = (await this.docker.containersWith([LABELS.database])).filter((c) => this.docker.isMine(c.Labels));
    const ids = new Set([...stored.keys(), ...containers.map((c) => c.Labels[LABELS.database]!)]);
    const out = [];
    for (const id of ids) {
      const db = stored.get(id);
      const c = containers.find((x) => x.Labels[LABELS.database] === id);
      const ws = db?.workspaceId ?? c?.Labels[LABELS.workspace] ?? '';
      if (workspaceId && ws !== workspaceId) continue;
      out.push({
        databaseId: id,
        workspaceId: ws,
        slug: db?.slug ?? '',
        engine: db?.engine ?? c?.Labels[ENGINE_LABEL] ?? '',
        containerId: c?.Id ?? '',
        state: !c ? 'missing' : c.State === 'running' ? 'running' : 'stopped',
        hasData: await exists(path.join(this.dir(id), 'data')),
        publicPort: this.listeners.port(id),
        cpuMillis: db?.cpuMillis ?? 0,
        memoryMb: db?.memoryMb ?? 0,
        image: c?.Image ?? db?.image ?? '',
      });
    }
    return out;
  }

  async status(databaseId: string, message = ''): Promise<DatabaseStatus> {
    const db = await this.read(databaseId);
    const container = await this.container(databaseId);
    const engine = db ? ENGINES[db.engine] : null;
    let ip = '';
    if (container && container.State === 'running' && db) ip = (await this.address(container.Id, db.workspaceId)) ?? '';
    return {
      databaseId,
      containerId: container?.Id ?? '',
      state: message ? 'failed' : !container ? 'missing' : container.State === 'running' ? 'running' : 'stopped',
      internalHost: db ? `${db.slug}.internal` : '',
      port: engine?.port ?? 0,
      ipAddress: ip,
      publicPort: this.listeners.port(databaseId),
      image: container?.Image ?? db?.image ?? '',
      message,
    };
  }

  // ------------------------------------------------------------------------------------------------ internals

  private validate(req: DatabaseRequest): Engine {
    checkId(req.databaseId);
    if (!ID.test(req.workspaceId)) throw invalid('workspace_id must be 1-64 letters, digits, - or _');
    if (!SLUG.test(req.slug)) throw invalid('slug must be a DNS label (a-z, 0-9, -; at most 63)');
    if (!isDatabaseEngine(req.engine)) throw invalid(`Unknown engine ${req.engine}: postgres, mysql, redis or mongodb`);
    if (!Number.isInteger(req.memoryMb) || req.memoryMb < 64 || req.memoryMb > 1_048_576) throw invalid('memory_mb must be at least 64');
    if (!Number.isInteger(req.cpuMillis) || req.cpuMillis < 10 || req.cpuMillis > 1_024_000) throw invalid('cpu_millis must be at least 10');
    if (req.engine !== 'redis') {
      if (!NAME.test(req.username)) throw invalid('username must be a letter or _ then letters, digits or _ (at most 63)');
      if (!NAME.test(req.databaseName)) throw invalid('database_name must be a letter or _ then letters, digits or _ (at most 63)');
    }
    checkPassword(req.password);
    req.public = checkPublic(req.public);
    if (req.tls && (!req.tls.certPem || !req.tls.keyPem)) throw invalid('tls needs both cert_pem and key_pem');
    return ENGINES[req.engine];
  }

  private async ensureLocked(req: DatabaseRequest, engine: Engine): Promise<DatabaseStatus> {
    const t0 = performance.now();
    const image = req.image || this.o.images[engine.name];
    if (!(await this.imageAvailable(image))) throw unavailable(engine.name, image);
    const db: StoredDatabase = {
      databaseId: req.databaseId,
      workspaceId: req.workspaceId,
      slug: req.slug,
      engine: engine.name,
      version: req.version,
      image,
      cpuMillis: req.cpuMillis,
      memoryMb: req.memoryMb,
      username: engine.name === 'redis' ? req.username || 'default' : req.username,
      databaseName: engine.name === 'redis' ? '0' : req.databaseName,
      public: req.public,
      stopped: req.stopped,
    };
    const ctx = contextOf(db, req.password);
    const dir = this.dir(db.databaseId);
    await mkdir(path.join(dir, 'data'), { recursive: true, mode: 0o700 });
    // The engine's user owns its data (the images' entrypoints also fix ownership below it).
    await chown(path.join(dir, 'data'), engine.uid, engine.gid);
    const tlsHash = await this.writeTls(db, engine, req.tls);
    await this.writeConfig(db, engine, ctx);
    await this.write(db);

    const networkId = await this.containers.networks.ensure(db.workspaceId);
    // An empty data folder: the engine's first start initialises it (without fsync for some engines: synced below).
    const fresh = (await readdir(path.join(dir, 'data'))).length === 0;
    const t1 = performance.now();
    // The first initialisation (PostgreSQL's initdb, MariaDB's system tables) is CPU work the user waits for: at the
    // plan's minimum (a quarter of a core) it took ~6 s of a ~1.5 s job. It runs with at least INIT_CPU_MILLIS; the
    // database's own limit is set in place once the engine answers, and at every later ensure should a crash have come
    // in between (the spec hash is the database's, so the boost never recreates the container).
    const spec = this.spec(db, engine, ctx);
    const boosted = fresh && spec.limits.cpuMillis < INIT_CPU_MILLIS ? { ...spec, limits: { ...spec.limits, cpuMillis: INIT_CPU_MILLIS } } : spec;
    let containerId: string;
    try {
      ({ id: containerId } = await this.containers.ensure(boosted, this.readiness(engine, ctx), specHash(db, engine, tlsHash), {
        graceMs: STOP_GRACE_MS,
        stopped: db.stopped,
        networkId,
        beforeReplace: () => this.listeners.close(db.databaseId),
      }));
    } catch (e) {
      if (e instanceof AppError) throw new AppError(e.code, redact(e.message, [req.password]));
      throw e;
    }
    const unboosted = await this.containers.limitCpu(containerId, db.cpuMillis);
    if (db.stopped) {
      await this.listeners.close(db.databaseId);
      return this.status(db.databaseId);
    }
    const t2 = performance.now();
    if (fresh && engine.initWithoutSync) await fsyncTree(path.join(dir, 'data'));
    this.logger.info(
      { databaseId: db.databaseId, engine: db.engine, prepareMs: Math.round(t1 - t0), readyMs: Math.round(t2 - t1), syncMs: Math.round(performance.now() - t2), initCpuMillis: unboosted ? INIT_CPU_MILLIS : null },
      'database running',
    );
    if (db.public.enabled) await this.openPublic(db);
    else await this.listeners.close(db.databaseId);
    return this.status(db.databaseId);
  }

  /** The database's container as the container layer runs it (hardening, labels and limits as every workload's). */
  private spec(db: StoredDatabase, engine: Engine, ctx: EngineContext): ContainerSpec {
    const dir = this.dir(db.databaseId);
    return {
      name: containerName(db.databaseId),
      image: db.image,
      workspaceId: db.workspaceId,
      labels: { [LABELS.database]: db.databaseId, [ENGINE_LABEL]: db.engine },
      env: engine.env(ctx),
      limits: { cpuMillis: db.cpuMillis, memoryMb: db.memoryMb },
      mounts: [
        { hostPath: path.join(dir, 'data'), containerPath: engine.dataPath },
        { hostPath: path.join(dir, 'tls'), containerPath: `${TLS_DIR}:ro` },
        { hostPath: path.join(dir, 'conf'), containerPath: `${CONF_DIR}:ro` },
      ],
      port: null,
      capabilities: engine.capabilities,
      command: engine.command(ctx),
      hostname: db.slug,
      aliases: [`${db.slug}.internal`],
    };
  }

  /** Ready once the engine's own client, inside the container, gets an answer to an authenticated query. */
  private readiness(engine: Engine, ctx: EngineContext): Readiness {
    const probe = engine.probe(ctx);
    return { probe: { kind: 'exec', ...probe }, timeoutMs: this.o.readyTimeoutMs ?? READY_TIMEOUT_MS, settleMs: 0, hostPort: 0, subject: `The ${engine.name} engine` };
  }

  /** Whether the engine answers an authenticated query with this context's password. */
  private async accepts(containerId: string, engine: Engine, ctx: EngineContext): Promise<boolean> {
    const probe = engine.probe(ctx);
    const r = await this.docker.exec(containerId, { ...probe, timeoutMs: 10_000 }).catch(() => null);
    return !!r && r.exitCode === 0 && (!probe.ok || probe.ok(r.stdout));
  }

  private async openPublic(db: StoredDatabase): Promise<void> {
    const engine = ENGINES[db.engine];
    try {
      await this.listeners.set(db.databaseId, {
        port: db.public.port,
        allowedCidrs: db.public.allowedCidrs,
        guard: engine.guard,
        target: async () => {
          const c = await this.container(db.databaseId);
          const ip = c ? await this.address(c.Id, db.workspaceId) : null;
          if (!ip) throw new Error('the database container has no address');
          return { host: ip, port: engine.publicTarget };
        },
      });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE' || (e as NodeJS.ErrnoException).code === 'EACCES') {
        throw new AppError('invalid_state', `The public port ${db.public.port} is in use on this server`);
      }
      throw e;
    }
  }

  private async address(containerId: string, workspaceId: string): Promise<string | null> {
    const info = await this.docker.inspectContainer(containerId).catch(() => null);
    const networks = info?.NetworkSettings?.Networks ?? {};
    const own = networks[workspaceNetworkName(workspaceId)] ?? Object.values(networks)[0];
    return own?.IPAddress || null;
  }

  private async writeTls(db: StoredDatabase, engine: Engine, tls: { certPem: string; keyPem: string } | null): Promise<string> {
    const dir = path.join(this.dir(db.databaseId), 'tls');
    await mkdir(dir, { recursive: true, mode: 0o755 });
    await chmod(dir, 0o755);
    const certPem = tls?.certPem || this.o.tls.certPem;
    const keyPem = tls?.keyPem || this.o.tls.keyPem;
    const files: [string, string, number][] = [
      ['server.crt', certPem, 0o644],
      ['ca.crt', this.o.tls.caPem, 0o644],
      // The key belongs to the engine's user, 0600: PostgreSQL refuses to start with a key others can read.
      ['server.key', keyPem, 0o600],
      ['server.pem', `${certPem.trim()}\n${keyPem.trim()}\n`, 0o600],
    ];
    for (const [name, content, mode] of files) await writeOwned(path.join(dir, name), content, mode, engine);
    return createHash('sha256').update(certPem).update(keyPem).digest('hex').slice(0, 16);
  }

  private async writeConfig(db: StoredDatabase, engine: Engine, ctx: EngineContext): Promise<void> {
    const dir = path.join(this.dir(db.databaseId), 'conf');
    await mkdir(dir, { recursive: true, mode: 0o755 });
    await chmod(dir, 0o755);
    for (const [name, content] of Object.entries(engine.files(ctx))) await writeOwned(path.join(dir, name), content, 0o600, engine);
  }

  private dir(databaseId: string): string {
    return path.join(this.root, databaseId);
  }

  private async read(databaseId: string): Promise<StoredDatabase | null> {
    try {
      return JSON.parse(await readFile(path.join(this.dir(databaseId), 'database.json'), 'utf8')) as StoredDatabase;
    } catch {
      return null;
    }
  }

  private async write(db: StoredDatabase): Promise<void> {
    const file = path.join(this.dir(db.databaseId), 'database.json');
    await writeFile(`${file}.tmp`, `${JSON.stringify(db, null, 2)}\n`, { mode: 0o600 });
    await rename(`${file}.tmp`, file);
  }

  private async stored(): Promise<StoredDatabase[]> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    const out: StoredDatabase[] = [];
    for (const name of names) {
      const db = await this.read(name);
      if (db) out.push(db);
    }
    return out;
  }

  private async containersOf(databaseId: string): Promise<Docker.ContainerInfo[]> {
    return (await this.docker.containersWith([`${LABELS.database}=${databaseId}`])).filter((c) => c.Labels[LABELS.platform] === this.docker.platformId);
  }

  private async container(databaseId: string): Promise<Docker.ContainerInfo | null> {
    return (await this.containersOf(databaseId))[0] ?? null;
  }

  private locked<T>(databaseId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(databaseId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    this.locks.set(databaseId, next);
    void next.finally(() => {
      if (this.locks.get(databaseId) === next) this.locks.delete(databaseId);
    }).catch(() => undefined);
    return next;
  }
}

export const containerName = (databaseId: string) => `slipway-db-${databaseId}`;

function checkId(databaseId: string): void {
  if (!ID.test(databaseId)) throw invalid('database_id must be 1-64 letters, digits, - or _');
}

function checkPassword(password: string): void {
  if (!password || password.length < 16 || password.length > 256 || !/^[\x21-\x7e]+$/.test(password)) {
    throw invalid('The password must be 16-256 printable characters without spaces');
  }
}

function checkPublic(access: PublicAccess | null | undefined): PublicAccess {
  if (!access || !access.enabled) return { enabled: false, port: 0, allowedCidrs: [] };
  if (!Number.isInteger(access.port) || access.port < PUBLIC_PORTS.min || access.port > PUBLIC_PORTS.max) {
    throw invalid(`The public port must be between ${PUBLIC_PORTS.min} and ${PUBLIC_PORTS.max}`);
  }
  const cidrs = validateCidrs(access.allowedCidrs);
  if (!cidrs.ok) throw invalid(`allowed_cidrs: ${cidrs.errors.map((e) => e.message).join('; ')}`);
  return { enabled: true, port: access.port, allowedCidrs: cidrs.cidrs };
}

function contextOf(db: StoredDatabase, password: string): EngineContext {
  return { username: db.username, databaseName: db.databaseName, password, memoryMb: db.memoryMb, cpuMillis: db.cpuMillis };
}

/** What makes a container stale: anything baked into its create options (never the password). */
function specHash(db: StoredDatabase, engine: Engine, tlsHash: string): string {
  const parts = [db.image, db.engine, db.slug, db.workspaceId, db.cpuMillis, db.memoryMb, db.username, db.databaseName, engine.dataPath, tlsHash, 'v2'];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
}

function unavailable(engine: DatabaseEngine, image: string): AppError {
  return new AppError(
    'engine_unavailable',
    `The ${engine} engine's image ${image} is not on this server: load it with \`docker load -i <file>.tar\` (saved elsewhere with \`docker save ${image}\`) or \`docker pull ${image}\` where a registry is reachable`,
  );
}

async function writeOwned(file: string, content: string, mode: number, engine: Engine): Promise<void> {
  await writeFile(`${file}.tmp`, content, { mode });
  await chmod(`${file}.tmp`, mode);
  await chown(`${file}.tmp`, engine.uid, engine.gid);
  await rename(`${file}.tmp`, file);
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}
