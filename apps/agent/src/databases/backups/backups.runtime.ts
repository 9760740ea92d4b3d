import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chown, mkdir, open, readdir, readFile, rename, rm, stat, unlink, writeFile, copyFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Transform, Writable, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isDatabaseEngine, redact, type DatabaseEngine } from '@slipway/contracts';
import { AppError, LABELS, type Logger } from '@slipway/core';
import { OffsiteError, openSealed, uploadSealed, type S3Target, type StoredBackup, type UploadTimings } from '@slipway/offsite';
import type { Containers } from '../../containers/containers';
import type { DockerRuntime } from '../../containers/docker.runtime';
import { execFromSource, execToSink } from '../../containers/exec-stream';
import { ENGINES } from '../engines';
import { DUMPERS, mysqlSessions, redisCommand, redisPersistence, type BackupContext, type CommandSpec, type Dumper } from './dumpers';

/** Which database, and how to get in (the control plane sends the password in every request; never stored here). */
export interface BackupTarget extends BackupContext {
  databaseId: string;
  engine: string;
  /** Issue 33: the destination of this one call (never stored, never logged). */
  offsite?: OffsiteCall;
}

/** An S3-compatible destination and the workspace's backup key, for one call. */
export interface OffsiteCall {
  /** Its prefix is already part of `key`. */
  target: S3Target;
  backupKey: Buffer;
  /** create: the key without its ending (`.<ext>.sealed` is added); restore, verify: the whole key. */
  key: string;
  /** create: keep the dump in backups/<databaseId>/ too; restore: keep the downloaded file after the load. */
  keepLocal: boolean;
  /** restore, verify: the stored object's SHA-256 (of the sealed bytes). */
  sha256: string;
  /** create: the most the dump is expected to be (0: unknown): the upload's part size grows with it. */
  sizeHintBytes?: number;
}

/** The backup's object at its destination (sizes and SHA-256 of the sealed bytes, read back). */
export interface RemoteObject {
  key: string;
  sizeBytes: number;
  sha256: string;
}

export interface BackupFile {
  backupId: string;
  databaseId: string;
  engine: DatabaseEngine;
  /** Relative to the agent's data folder: `backups/<databaseId>/<backupId>.<ext>`. */
  path: string;
  sizeBytes: number;
  sha256: string;
  format: string;
  /** Issue 33: where it was stored off the server. */
  remote?: RemoteObject | null;
}

export interface VerifyResult {
  ok: boolean;
  method: string;
  message: string;
}

export interface BackupsRuntimeOptions {
  dataDir: string;
  /** The engine's image on this server (the databases' setting): what a load check runs. */
  imageOf?: (engine: DatabaseEngine) => string;
  /** How long a dump or a load may take (default 6 h). */
  timeoutMs?: number;
  readyTimeoutMs?: number;
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const DEFAULT_TIMEOUT_MS = 6 * 3600_000;
const STOP_GRACE_MS = 30_000;
/** A load check's throw-away engine: its memory, its workspace label (it belongs to none) and its own label. */
const LOAD_CHECK_MEMORY_MB = 512;
const VERIFY_WORKSPACE = 'backup-verify';
const VERIFY_LABEL = 'slipway.backup-verify';
/** A load check gives up after this long (the throw-away container is removed either way). */
const LOAD_CHECK_TIMEOUT_MS = 30 * 60_000;

const failed = (message: string) => new AppError('invalid_state', message);

/**
 * Backups of the managed databases of this server (issue 13): each dump streamed from the engine's own tool, run
 * inside the database's container (`docker exec`), to `backups/<databaseId>/<backupId>.<ext>` with its SHA-256
 * computed while it is written, fsynced, then renamed into place with a `.json` beside it (size, checksum): a file
 * without its `.json` is not a backup. A dump that exits non-zero, a short or malformed file, or a full disk leave
 * nothing behind. Restores load a file into a running database (the same one or a new one); `verify` proves a file
 * restorable. One backup or restore per database at a time.
 */
export class BackupsRuntime {
  private readonly root: string;
  /** The one backup or restore running per database, with what it is (`backup:<id>`, `restore:<source>/<id>`). */
  private readonly locks = new Map<string, { work: string; done: Promise<unknown> }>();

  constructor(
    private readonly docker: DockerRuntime,
    private readonly containers: Containers,
    private readonly o: BackupsRuntimeOptions,
    private readonly logger: Logger,
  ) {
    this.root = path.join(o.dataDir, 'backups');
  }

  /** Partial files of dumps cut by an agent restart are removed (they never counted). */
  async start(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    // Scratch folders of load checks cut by a restart (their throw-away containers go at the next check).
    for (const db of await readdir(this.root).catch(() => [] as string[])) {
      if (db.startsWith('.verify-')) {
        await rm(path.join(this.root, db), { recursive: true, force: true });
        continue;
      }
      for (const name of await readdir(path.join(this.root, db)).catch(() => [] as string[])) {
        if (name.endsWith('.partial')) await rm(path.join(this.root, db, name), { force: true });
      }
    }
  }

  // ------------------------------------------------------------------------------------------------ backup

  /**
   * Dumps the database into a new backup file; a repeat with the same id answers the file already made. With
   * `offsite` the dump streams to the destination as it is made (sealed, multipart, read back before the answer), and
   * a file is kept here only when `keepLocal` (no full local copy otherwise; memory bounded by the upload's parts).
   */
  create(t: BackupTarget & { backupId: string }): Promise<BackupFile & { replayed: boolean; remote: RemoteObject | null }> {
    const dumper = this.dumperOf(t);
    checkId(t.backupId, 'backup_id');
    return this.locked(t.databaseId, `backup:${t.backupId}`, async () => {
      const done = await this.read(t.databaseId, t.backupId);
      if (done && (!t.offsite || done.remote)) return { ...done, remote: done.remote ?? null, replayed: true };
      const container = await this.runningContainer(t.databaseId, 'backing it up');
      const dir = path.join(this.root, t.databaseId);
      const final = path.join(dir, `${t.backupId}.${dumper.extension}`);
      const partial = path.join(dir, `.${t.backupId}.partial`);
      const keepLocal = !t.offsite || t.offsite.keepLocal;
      if (keepLocal) await mkdir(dir, { recursive: true, mode: 0o700 });
      const fh = keepLocal ? await open(partial, 'w', 0o600) : null;
      let upload: OffsiteUpload | null = null;
      const hash = createHash('sha256');
      const head: Buffer[] = [];
      let headBytes = 0;
      let tail = Buffer.alloc(0);
      let size = 0;
      const sink = new Writable({
        highWaterMark: 1 << 20,
        write(chunk: Buffer, _enc, cb) {
          // An upload hashes the dump as it seals it: its checksum is the file's (the same bytes), not hashed twice.
          if (!upload) hash.update(chunk);
          size += chunk.length;
          if (headBytes < 256) {
            head.push(chunk.subarray(0, 256 - headBytes));
            headBytes += Math.min(256, chunk.length);
          }
          tail = Buffer.concat([tail, chunk.subarray(Math.max(0, chunk.length - 512))]).subarray(-512);
          Promise.all([fh?.write(chunk), upload?.write(chunk)]).then(() => cb(), cb);
        },
      });
      if (dumper.snapshot) await this.redisSnapshot(container, t).catch(async (e: unknown) => {
        await fh?.close().catch(() => undefined);
        await unlink(partial).catch(() => undefined);
        throw e;
      });
      const manifest = { engine: t.engine, dumpFormat: dumper.format, extension: dumper.extension, databaseId: t.databaseId, backupId: t.backupId };
      const timings: UploadTimings = {};
      if (t.offsite) upload = startUpload(t.offsite, `${t.offsite.key}.${dumper.extension}.sealed`, manifest, timings);
      const spec = dumper.dump(t);
      let closed = false;
      let stored: StoredBackup | null = null;
      try {
        let r;
        try {
          r = await execToSink(this.docker, container, { ...spec, timeoutMs: this.o.timeoutMs ?? DEFAULT_TIMEOUT_MS }, sink);
        } catch (e) {
          // The destination failing mid-dump cuts the dump: its sentence is the reason.
          const gave = upload ? await upload.stop(e as Error) : null;
          if (gave instanceof OffsiteError) throw failed(gave.message);
          const code = (e as NodeJS.ErrnoException).code;
          if (code === 'ENOSPC' || code === 'EDQUOT') {
            throw failed(`The server's disk is full: the dump stopped after ${mbText(size)} written to backups/${t.databaseId}/. Free space on the server (or delete old backups) and back up again.`);
          }
          const state = await this.docker.containerState(container).catch(() => null);
          if (state && !state.Running) throw failed(`The ${t.engine} engine stopped during the backup (after ${mbText(size)}): start the database and back up again.`);
          throw failed(`The ${t.engine} dump could not be written: ${(e as Error).message}`);
        }
        if (r.exitCode !== 0) {
          const state = await this.docker.containerState(container).catch(() => null);
          if (state && !state.Running) throw failed(`The ${t.engine} engine stopped during the backup (after ${mbText(size)}): start the database and back up again.`);
          throw failed(`The ${t.engine} dump tool failed (exit ${r.exitCode}): ${redact(r.stderr.trim(), [t.password]).slice(-600) || 'no message'}`);
        }
        const problem = checkDump(t.engine as DatabaseEngine, Buffer.concat(head), tail, size);
        if (problem) throw failed(`The ${t.engine} dump is not complete: ${problem}. Back up again; if it repeats, the engine's log says why.`);
        // The dump is whole: the upload ends, its size and checksum are read back from the storage (or the whole object,
        // from a storage that keeps no checksums) and it gets its manifest before it counts.
        if (upload) stored = await upload.finish();
        // The checksum recorded is the upload's hash of the dump: it must have seen every byte the dump gave.
        if (stored && stored.plainSizeBytes !== size) throw failed(`The upload took ${stored.plainSizeBytes} bytes of a dump of ${size}: it is not kept as a completed backup. Back up again.`);
        if (fh) {
          await fh.sync();
          await fh.close();
          closed = true;
          await rename(partial, final);
          await syncDir(dir);
        }
      } catch (e) {
        if (upload) await upload.stop(e as Error);
        if (!closed) await fh?.close().catch(() => undefined);
        await unlink(partial).catch(() => undefined);
        throw e;
      }
      const remote = stored ? { key: stored.key, sizeBytes: stored.sizeBytes, sha256: stored.sha256 } : null;
      const file: BackupFile = {
        backupId: t.backupId,
        databaseId: t.databaseId,
        engine: t.engine as DatabaseEngine,
        path: fh ? path.relative(this.o.dataDir, final) : '',
        sizeBytes: size,
        sha256: stored ? stored.plainSha256 : hash.digest('hex'),
        format: dumper.format,
        remote,
      };
      if (!fh) {
        this.logger.info({ databaseId: t.databaseId, backupId: t.backupId, sizeBytes: size, remoteKey: remote?.key, verifiedBy: stored?.verifiedBy, ...timings }, 'database backed up to its destination');
        return { ...file, remote, replayed: false };
      }
      try {
        await writeDurable(path.join(dir, `${t.backupId}.json`), `${JSON.stringify(file, null, 2)}\n`);
      } catch (e) {
        await unlink(final).catch(() => undefined);
        if ((e as NodeJS.ErrnoException).code === 'ENOSPC') throw failed(`The server's disk is full: the backup's record could not be written in backups/${t.databaseId}/. Free space on the server and back up again.`);
        throw e;
      }
      this.logger.info({ databaseId: t.databaseId, backupId: t.backupId, sizeBytes: size, remoteKey: remote?.key, verifiedBy: stored?.verifiedBy, ...timings }, 'database backed up');
      return { ...file, remote, replayed: false };
    });
  }

  // ------------------------------------------------------------------------------------------------ verify

  /**
   * Proves a backup restorable without touching the database: its bytes still hash to the recorded SHA-256, then
   * per engine `pg_restore --file=/dev/null` inside the container (the whole archive read; postgres), the dump's header and completion line and no `USE`
   * statement (mysql), the RDB header and end-of-file marker (redis).
   */
  async verify(t: BackupTarget & { backupId: string; load?: boolean }): Promise<VerifyResult> {
    if (t.offsite && !(await this.read(t.databaseId, t.backupId))) return this.verifyStored(t, t.offsite);
    const cheap = await this.verifyFile(t);
    if (!cheap.ok || !t.load) return cheap;
    const file = await this.require(t.databaseId, t.backupId);
    return this.loadCheck(file);
  }

  /**
   * A backup kept only at its destination: downloaded and opened as a stream (its SHA-256 and every chunk's tag
   * checked), fed to `pg_restore --list` inside the database's container for postgres, else its first and last bytes
   * checked like a fresh dump's. Nothing is written to disk.
   */
  private async verifyStored(t: BackupTarget & { backupId: string }, offsite: OffsiteCall): Promise<VerifyResult> {
    const engine = t.engine as DatabaseEngine;
    let source: Readable;
    try {
      source = await openSealed(offsite.target, offsite.key, offsite.backupKey, offsite.sha256 || undefined);
    } catch (e) {
      return { ok: false, method: 'offsite', message: (e as Error).message };
    }
    const command = DUMPERS[engine]?.verifyCommand(t);
    const container = command ? await this.container(t.databaseId) : null;
    try {
      if (command && container?.State === 'running') {
        const r = await execFromSource(this.docker, container.Id, { ...command, timeoutMs: 600_000 }, source);
        const ok = r.exitCode === 0 && (!command.ok || command.ok(r.stdout));
        return { ok, method: `offsite: ${command.cmd.join(' ')}`, message: ok ? 'downloaded from the destination, opened, and the whole archive reads back' : `${command.cmd.join(' ')} failed (exit ${r.exitCode}): ${r.stderr.trim().slice(-400)}` };
      }
      const scan = new DumpScan();
      await pipeline(source, scan, new PassThrough().resume());
      const problem = checkDump(engine, scan.head(), scan.tail, scan.bytes);
      return { ok: !problem, method: 'offsite', message: problem ?? `downloaded from the destination and opened (SHA-256 and every chunk checked), ${mbText(scan.bytes)}` };
    } catch (e) {
      return { ok: false, method: 'offsite', message: (e as Error).message };
    } finally {
      source.destroy();
    }
  }

  private async verifyFile(t: BackupTarget & { backupId: string }): Promise<VerifyResult> {
    const file = await this.require(t.databaseId, t.backupId);
    const abs = path.join(this.o.dataDir, file.path);
    const sha = await sha256Of(abs).catch(() => null);
    if (sha === null) return { ok: false, method: 'checksum', message: `The backup file ${file.path} is missing or unreadable on the server` };
    if (sha !== file.sha256) return { ok: false, method: 'checksum', message: `The backup file changed on disk: SHA-256 ${sha} instead of ${file.sha256}` };
    const dumper = DUMPERS[file.engine]!;
    const command = dumper.verifyCommand(t);
    if (command) {
      const container = await this.container(t.databaseId);
      if (!container || container.State !== 'running') return { ok: true, method: 'checksum', message: 'checksum matches (the database is not running: the archive check waits for it)' };
      const r = await execFromSource(this.docker, container.Id, { ...command, timeoutMs: 600_000 }, createReadStream(abs));
      const ok = r.exitCode === 0 && (!command.ok || command.ok(r.stdout));
      return { ok, method: command.cmd.join(' '), message: ok ? 'the whole archive reads back' : `${command.cmd.join(' ')} failed (exit ${r.exitCode}): ${r.stderr.trim().slice(-400)}` };
    }
    if (file.engine === 'mysql') {
      const problem = await scanSql(abs);
      return { ok: !problem, method: 'sql-scan', message: problem ?? 'header, completion line, no USE statement' };
    }
    const problem = await checkRdb(abs);
    return { ok: !problem, method: 'rdb-header', message: problem ?? 'RDB header and end-of-file marker' };
  }

  /**
   * The strongest check: the file loaded into a throw-away container of the engine's image (no network, its own
   * random password, a small memory limit), then the container and its copy removed. Postgres: `pg_restore
   * --exit-on-error`; MySQL: the SQL fed to the client; Redis: the RDB as the server's `dump.rdb` at start, `DBSIZE`.
   */
  private async loadCheck(file: BackupFile): Promise<VerifyResult> {
    const image = this.o.imageOf?.(file.engine) ?? '';
    if (!image || !(await this.docker.inspectImage(image))) return { ok: false, method: 'load', message: `the ${file.engine} image ${image || '(none set)'} is not on this server` };
    const engine = ENGINES[file.engine];
    const ctx = { username: 'verify', databaseName: 'verify', password: randomBytes(24).toString('base64url'), memoryMb: LOAD_CHECK_MEMORY_MB, cpuMillis: 1000 };
    const abs = path.join(this.o.dataDir, file.path);
    const scratch = path.join(this.root, `.verify-${file.backupId}`);
    try {
      // The engine's data on a scratch folder (bind-mounted over the image's VOLUME: no anonymous volume is left).
      const data = path.join(scratch, 'data');
      await mkdir(data, { recursive: true, mode: 0o700 });
      if (file.engine === 'redis') await copyFile(abs, path.join(data, 'dump.rdb'));
      for (const f of await readdir(data)) await chown(path.join(data, f), engine.uid, engine.gid);
      await chown(data, engine.uid, engine.gid);
      const probe: CommandSpec = file.engine === 'redis' ? { cmd: ['redis-cli', 'PING'], ok: (o) => o.trim() === 'PONG' } : engine.probe(ctx);
      return await this.containers.throwaway(
        {
          name: `slipway-verify-${file.backupId}`,
          image,
          workspaceId: VERIFY_WORKSPACE,
          labels: { [VERIFY_LABEL]: file.backupId },
          env: engine.env(ctx),
          limits: { cpuMillis: ctx.cpuMillis, memoryMb: ctx.memoryMb },
          mounts: [{ hostPath: data, containerPath: engine.dataPath }],
          port: null,
          capabilities: engine.capabilities,
          // No network at all: nothing reaches it, and it reaches nothing. Redis loads dump.rdb and keeps no AOF.
          command: file.engine === 'redis' ? ['redis-server', '--appendonly', 'no', '--save', '', '--dir', engine.dataPath] : undefined,
        },
        { probe: { kind: 'exec', ...probe }, timeoutMs: this.o.readyTimeoutMs ?? 180_000, settleMs: 0, hostPort: 0, subject: `The throw-away ${file.engine}` },
        async (id) => {
          if (file.engine === 'redis') {
            const r = await this.docker.exec(id, { cmd: ['redis-cli', 'DBSIZE'], timeoutMs: 10_000 });
            return { ok: r.exitCode === 0, method: 'load', message: `loaded into a throw-away redis: ${r.stdout.trim()} keys` };
          }
          const dumper = DUMPERS[file.engine]!;
          if (dumper.restore.mode !== 'sql') return { ok: false, method: 'load', message: 'no load for this engine' };
          const load = dumper.restore.load(ctx);
          const r = await execFromSource(this.docker, id, { ...load, timeoutMs: LOAD_CHECK_TIMEOUT_MS }, createReadStream(abs, { highWaterMark: 256 * 1024 }));
          const ok = r.exitCode === 0;
          return { ok, method: 'load', message: ok ? `loaded into a throw-away ${file.engine}` : `loading into a throw-away ${file.engine} failed (exit ${r.exitCode}): ${r.stderr.trim().slice(-400)}` };
        },
      );
    } catch (e) {
      // The throw-away engine never came up (it stopped, or did not answer in time): the file is not proven.
      if (e instanceof AppError && e.code === 'rollout_failed') return { ok: false, method: 'load', message: redact(e.message, [ctx.password]).slice(0, 600) };
      throw e;
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  // ------------------------------------------------------------------------------------------------ restore

  /**
   * Loads the backup `backupId` of `sourceDatabaseId` into the running database `t` (the same one or a new one of
   * the same engine): connections cut, data replaced, credentials kept. The file's checksum is checked first.
   */
  restore(t: BackupTarget & { sourceDatabaseId: string; backupId: string; sha256: string }): Promise<{ restoredBytes: number }> {
    const dumper = this.dumperOf(t);
    checkId(t.sourceDatabaseId, 'source_database_id');
    return this.locked(t.databaseId, `restore:${t.sourceDatabaseId}/${t.backupId}`, async () => {
      const here = await this.read(t.sourceDatabaseId, t.backupId);
      // Not on this server (one that never held the database): downloaded from the destination and opened first.
      const file = here ?? (t.offsite ? await this.fetchStored(t, t.offsite) : await this.require(t.sourceDatabaseId, t.backupId));
      try {
        return await this.restoreFile(t, dumper, file);
      } finally {
        if (!here && !t.offsite?.keepLocal) await this.remove(t.sourceDatabaseId, t.backupId);
      }
    });
  }

  /**
   * Downloads and opens the stored backup into `backups/<sourceDatabaseId>/<backupId>.<ext>` (+ its `.json`): the
   * sealed object's SHA-256 and every chunk's tag are checked on the way, the opened dump's SHA-256 must be the one
   * the control plane recorded. A failure leaves nothing behind.
   */
  private async fetchStored(t: BackupTarget & { sourceDatabaseId: string; backupId: string; sha256: string }, offsite: OffsiteCall): Promise<BackupFile> {
    const dumper = this.dumperOf(t);
    const dir = path.join(this.root, t.sourceDatabaseId);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const final = path.join(dir, `${t.backupId}.${dumper.extension}`);
    const partial = path.join(dir, `.${t.backupId}.partial`);
    const tap = new DumpScan();
    try {
      const source = await openSealed(offsite.target, offsite.key, offsite.backupKey, offsite.sha256 || undefined);
      await pipeline(source, tap, createWriteStream(partial, { mode: 0o600 }));
      const sha256 = tap.hash.digest('hex');
      if (t.sha256 && sha256 !== t.sha256) throw failed(`The backup downloaded from the destination opened to different bytes than were backed up (SHA-256 ${sha256.slice(0, 12)}…, expected ${t.sha256.slice(0, 12)}…): it is not restored.`);
      await rename(partial, final);
      const file: BackupFile = { backupId: t.backupId, databaseId: t.sourceDatabaseId, engine: t.engine as DatabaseEngine, path: path.relative(this.o.dataDir, final), sizeBytes: tap.bytes, sha256, format: dumper.format, remote: { key: offsite.key, sizeBytes: 0, sha256: offsite.sha256 } };
      await writeDurable(path.join(dir, `${t.backupId}.json`), `${JSON.stringify(file, null, 2)}\n`);
      this.logger.info({ databaseId: t.databaseId, backupId: t.backupId, sizeBytes: tap.bytes }, 'backup downloaded from its destination');
      return file;
    } catch (e) {
      await unlink(partial).catch(() => undefined);
      await unlink(final).catch(() => undefined);
      if (e instanceof OffsiteError) throw failed(e.message);
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' || code === 'EDQUOT') throw failed(`The server's disk is full: the backup downloaded from the destination stopped after ${mbText(tap.bytes)} in backups/${t.sourceDatabaseId}/. Free space on the server and restore again.`);
      throw e;
    }
  }

  private async restoreFile(t: BackupTarget & { sourceDatabaseId: string; backupId: string; sha256: string }, dumper: Dumper, file: BackupFile): Promise<{ restoredBytes: number }> {
    {
      if (file.engine !== t.engine) throw new AppError('validation_failed', `The backup is of ${file.engine}; it cannot be restored into a ${t.engine} database`);
      const abs = path.join(this.o.dataDir, file.path);
      const sha = await sha256Of(abs);
      if (sha !== file.sha256 || (t.sha256 && sha !== t.sha256)) throw failed(`The backup file changed on disk (SHA-256 ${sha} instead of ${t.sha256 || file.sha256}): it cannot be restored`);
      const container = await this.runningContainer(t.databaseId, 'restoring into it');
      if (dumper.restore.mode === 'file') {
        await this.restoreRedis(t, container, abs);
      } else {
        if (t.engine === 'mysql') await this.killMysqlSessions(container, t);
        for (const step of dumper.restore.prepare(t)) await this.run(container, step, 'could not empty the database before loading');
        const load = dumper.restore.load(t);
        const r = await execFromSource(this.docker, container, { ...load, timeoutMs: this.o.timeoutMs ?? DEFAULT_TIMEOUT_MS }, createReadStream(abs));
        if (r.exitCode !== 0) throw failed(`Loading the backup failed (exit ${r.exitCode}): ${redact(r.stderr.trim(), [t.password]).slice(-600) || 'no message'}`);
      }
      this.logger.info({ databaseId: t.databaseId, from: t.sourceDatabaseId, backupId: t.backupId }, 'backup restored');
      return { restoredBytes: file.sizeBytes };
    }
  }

  /**
   * Redis loads an RDB only at start, and ignores it when `appendonly yes` finds an AOF: the server is stopped, the
   * AOF folder removed, the file put in place as `dump.rdb`, the server started with `appendonly no` (it loads the
   * RDB), then `CONFIG SET appendonly yes` rewrites the AOF from the loaded data and the config file says yes again.
   */
  private async restoreRedis(t: BackupTarget, containerId: string, abs: string): Promise<void> {
    const dbDir = path.join(this.o.dataDir, 'databases', t.databaseId);
    const data = path.join(dbDir, 'data');
    const conf = path.join(dbDir, 'conf', 'redis.conf');
    const original = await readFile(conf, 'utf8');
    const owner = await stat(conf);
    const writeConf = async (text: string) => {
      await writeFile(`${conf}.tmp`, text, { mode: 0o600 });
      await chown(`${conf}.tmp`, owner.uid, owner.gid);
      await rename(`${conf}.tmp`, conf);
    };
    await this.containers.stop(containerId, STOP_GRACE_MS);
    try {
      await rm(path.join(data, 'appendonlydir'), { recursive: true, force: true });
      await copyFile(abs, path.join(data, 'dump.rdb.tmp'));
      await chown(path.join(data, 'dump.rdb.tmp'), ENGINES.redis.uid, ENGINES.redis.gid);
      await rename(path.join(data, 'dump.rdb.tmp'), path.join(data, 'dump.rdb'));
      await writeConf(original.replace(/^appendonly yes$/m, 'appendonly no'));
      await this.containers.start(containerId);
      await this.waitRedis(containerId, t);
      await this.run(containerId, { ...redisCommand(t, 'CONFIG', 'SET', 'appendonly', 'yes'), ok: (o) => o.trim() === 'OK' }, 'could not turn the append-only file back on');
      const deadline = Date.now() + 600_000;
      for (;;) {
        const r = await this.docker.exec(containerId, { ...redisPersistence(t), timeoutMs: 10_000 });
        const info = r.stdout;
        if (/aof_enabled:1/.test(info) && /aof_rewrite_in_progress:0/.test(info) && /aof_rewrite_scheduled:0/.test(info)) {
          if (/aof_last_bgrewrite_status:err/.test(info)) throw failed('Redis could not rewrite its append-only file from the restored data');
          break;
        }
        if (Date.now() > deadline) throw failed('Redis did not finish rewriting its append-only file in 10 minutes');
        await sleep(100);
      }
    } finally {
      await writeConf(original);
    }
  }

  /** BGSAVE (scheduled after a running AOF rewrite), waited for: the snapshot `cat /data/dump.rdb` then reads. */
  private async redisSnapshot(containerId: string, t: BackupTarget): Promise<void> {
    const saves = async () => {
      const r = await this.docker.exec(containerId, { ...redisPersistence(t), timeoutMs: 10_000 });
      if (r.exitCode !== 0) throw failed(`Redis did not answer: ${(r.stderr || r.stdout).trim().slice(-300)}`);
      const n = /rdb_saves:([0-9]+)/.exec(r.stdout);
      return { count: n ? Number(n[1]) : -1, running: /rdb_bgsave_in_progress:1/.test(r.stdout), ok: /rdb_last_bgsave_status:ok/.test(r.stdout) };
    };
    const before = await saves();
    await this.run(containerId, { ...redisCommand(t, 'BGSAVE', 'SCHEDULE'), ok: (o) => /Background saving (started|scheduled)/.test(o) }, 'refused to take a snapshot (BGSAVE)');
    const deadline = Date.now() + (this.o.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    for (;;) {
      const now = await saves();
      if (now.count > before.count && !now.running) {
        if (!now.ok) throw failed(`Redis could not write its snapshot (BGSAVE failed; the server's disk may be full): ${(await this.docker.lastLines(containerId, 5)).join(' ').slice(-400)}`);
        return;
      }
      if (Date.now() > deadline) throw failed('Redis did not finish its snapshot (BGSAVE) in time');
      await sleep(50);
    }
  }

  private async waitRedis(containerId: string, t: BackupTarget): Promise<void> {
    const deadline = Date.now() + (this.o.readyTimeoutMs ?? 120_000);
    for (;;) {
      const r = await this.docker.exec(containerId, { ...redisCommand(t, 'PING'), timeoutMs: 5_000 }).catch(() => null);
      if (r && r.stdout.trim() === 'PONG') return;
      const state = await this.docker.containerState(containerId);
      if (!state.Running && !state.Restarting) {
        throw failed(`Redis stopped while loading the backup (exit ${state.ExitCode}): ${(await this.docker.lastLines(containerId, 10)).join('\n')}`);
      }
      if (Date.now() > deadline) throw failed('Redis did not answer after loading the backup');
      await sleep(200);
    }
  }

  private async killMysqlSessions(containerId: string, t: BackupTarget): Promise<void> {
    const r = await this.docker.exec(containerId, { ...mysqlSessions(t), timeoutMs: 30_000 });
    const ids = r.stdout.split('\n').map((s) => s.trim()).filter((s) => /^[0-9]+$/.test(s));
    if (!ids.length) return;
    // KILL of a session that ended meanwhile is an error: each alone, failures ignored.
    for (const id of ids) await this.docker.exec(containerId, { ...mysqlSessions(t), cmd: [...mysqlSessions(t).cmd.slice(0, -2), '-e', `KILL ${id}`], timeoutMs: 10_000 });
  }

  // ------------------------------------------------------------------------------------------------ files

  /** The backup's bytes for a download, with its size and checksum. */
  async openRead(databaseId: string, backupId: string): Promise<{ file: BackupFile; stream: Readable }> {
    const file = await this.require(databaseId, backupId);
    return { file, stream: createReadStream(path.join(this.o.dataDir, file.path), { highWaterMark: 256 * 1024 }) };
  }

  /** Removes a backup's file and record; idempotent. */
  async remove(databaseId: string, backupId: string): Promise<{ removed: boolean }> {
    checkId(databaseId, 'database_id');
    checkId(backupId, 'backup_id');
    const dir = path.join(this.root, databaseId);
    const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith(`${backupId}.`) || n === `.${backupId}.partial`);
    for (const n of names) await rm(path.join(dir, n), { force: true });
    if ((await readdir(dir).catch(() => ['x'])).length === 0) await rm(dir, { recursive: true, force: true });
    return { removed: names.length > 0 };
  }

  async read(databaseId: string, backupId: string): Promise<BackupFile | null> {
    checkId(databaseId, 'database_id');
    checkId(backupId, 'backup_id');
    try {
      const file = JSON.parse(await readFile(path.join(this.root, databaseId, `${backupId}.json`), 'utf8')) as BackupFile;
      await stat(path.join(this.o.dataDir, file.path));
      return file;
    } catch {
      return null;
    }
  }

  // ------------------------------------------------------------------------------------------------ internals

  private async require(databaseId: string, backupId: string): Promise<BackupFile> {
    const file = await this.read(databaseId, backupId);
    if (!file) throw new AppError('not_found', `The backup ${backupId} of database ${databaseId} is not on this server`);
    return file;
  }

  private dumperOf(t: BackupTarget): Dumper {
    checkId(t.databaseId, 'database_id');
    if (!isDatabaseEngine(t.engine)) throw new AppError('validation_failed', `Unknown engine ${t.engine}`);
    const dumper = DUMPERS[t.engine];
    if (!dumper) throw new AppError('engine_unavailable', `Backups of ${t.engine} databases are not available on this platform yet`);
    if (!t.password) throw new AppError('validation_failed', 'password is required');
    return dumper;
  }

  private async container(databaseId: string) {
    const list = (await this.docker.containersWith([`${LABELS.database}=${databaseId}`])).filter((c) => c.Labels[LABELS.platform] === this.docker.platformId);
    return list[0] ?? null;
  }

  private async runningContainer(databaseId: string, doing: string): Promise<string> {
    const c = await this.container(databaseId);
    if (!c) throw new AppError('not_found', `No database ${databaseId} on this server`);
    if (c.State !== 'running') throw failed(`The database is not running: start it before ${doing}`);
    return c.Id;
  }

  private async run(containerId: string, step: CommandSpec, what: string): Promise<string> {
    const r = await this.docker.exec(containerId, { ...step, timeoutMs: 120_000 });
    if (r.exitCode !== 0 || (step.ok && !step.ok(r.stdout))) throw failed(`The engine ${what}: ${(r.stderr || r.stdout).trim().slice(-500)}`);
    return r.stdout;
  }

  /**
   * Runs `run` as the database's one backup or restore. The same work asked again while it runs (its caller's job was
   * cut — a worker killed mid-restore — and the job is run again) joins the running one and answers with its outcome,
   * instead of a second pg_restore over the first; other work on the database is refused as busy.
   */
  private locked<T>(databaseId: string, work: string, run: () => Promise<T>): Promise<T> {
    const current = this.locks.get(databaseId);
    if (current?.work === work) {
      this.logger.info({ databaseId, work }, 'the same backup work asked again while it runs: joined');
      return current.done as Promise<T>;
    }
    if (current) return Promise.reject(new AppError('database_busy', 'A backup or restore of this database is already running on the server'));
    const done = run();
    this.locks.set(databaseId, { work, done });
    void done
      .finally(() => this.locks.delete(databaseId))
      .catch(() => undefined);
    return done;
  }

}

/** What is wrong with a finished dump (null: nothing seen), from its first bytes, last bytes and size. */
export function checkDump(engine: DatabaseEngine, head: Buffer, tail: Buffer, size: number): string | null {
  if (size === 0) return 'the dump tool wrote nothing';
  if (engine === 'postgres' && !head.subarray(0, 5).equals(Buffer.from('PGDMP'))) return 'it does not start like a pg_dump archive';
  if (engine === 'mysql') {
    const text = tail.toString('utf8');
    if (!/^-- (MariaDB|MySQL) dump/m.test(head.toString('utf8'))) return 'it does not start like a MySQL dump';
    if (!text.includes('-- Dump completed')) return 'it has no completion line (the dump was cut)';
  }
  if (engine === 'redis') return rdbProblem(head, tail);
  return null;
}

function rdbProblem(head: Buffer, tail: Buffer): string | null {
  if (!/^REDIS[0-9]{4}/.test(head.subarray(0, 9).toString('latin1'))) return 'it has no RDB header';
  // An RDB ends with the EOF opcode 0xFF and an 8-byte CRC64.
  if (tail.length < 9 || tail[tail.length - 9] !== 0xff) return 'it has no RDB end-of-file marker (the snapshot was cut)';
  return null;
}

async function checkRdb(file: string): Promise<string | null> {
  const fh = await open(file, 'r');
  try {
    const { size } = await fh.stat();
    const head = Buffer.alloc(Math.min(9, size));
    await fh.read(head, 0, head.length, 0);
    const tail = Buffer.alloc(Math.min(9, size));
    await fh.read(tail, 0, tail.length, Math.max(0, size - 9));
    return rdbProblem(head, tail);
  } finally {
    await fh.close();
  }
}

/** A MySQL dump read through once: its header, its completion line, and no `USE` line that would pick a database. */
async function scanSql(file: string): Promise<string | null> {
  let first = '';
  let carry = '';
  let last = '';
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const text = carry + (chunk as string);
    if (!first) first = text.slice(0, 512);
    const lines = text.split('\n');
    carry = lines.pop() ?? '';
    for (const line of lines) {
      if (/^USE\s/i.test(line)) return 'the dump selects a database (USE): it would load into the original';
      if (line.startsWith('-- Dump completed')) last = line;
    }
  }
  if (carry.startsWith('-- Dump completed')) last = carry;
  if (!/^-- (MariaDB|MySQL) dump/m.test(first)) return 'it does not start like a MySQL dump';
  if (!last) return 'it has no completion line (the dump was cut)';
  return null;
}

export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function writeDurable(file: string, text: string): Promise<void> {
  const fh = await open(`${file}.tmp`, 'w', 0o600);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(`${file}.tmp`, file);
  await syncDir(path.dirname(file));
}

async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

function checkId(id: string, field: string): void {
  if (!ID.test(id)) throw new AppError('validation_failed', `${field} must be 1-64 letters, digits, - or _`);
}

const mbText = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Counts, hashes and keeps the first and last bytes of a dump passing through (checkDump reads them). */
class DumpScan extends Transform {
  readonly hash = createHash('sha256');
  bytes = 0;
  private readonly first: Buffer[] = [];
  private firstBytes = 0;
  tail = Buffer.alloc(0);

  head(): Buffer {
    return Buffer.concat(this.first);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    if (this.firstBytes < 256) {
      this.first.push(chunk.subarray(0, 256 - this.firstBytes));
      this.firstBytes += Math.min(256, chunk.length);
    }
    this.tail = Buffer.concat([this.tail, chunk.subarray(Math.max(0, chunk.length - 512))]).subarray(-512);
    done(null, chunk);
  }
}

/** A dump being streamed to its destination while it is made. */
interface OffsiteUpload {
  /** Resolves once the upload took the chunk (backpressure); rejects when the upload stopped. */
  write(chunk: Buffer): Promise<void>;
  /** The dump is whole: the upload ends, is read back and gets its manifest. OffsiteError → invalid_state. */
  finish(): Promise<StoredBackup>;
  /** The dump failed: the upload is aborted (no parts left); answers the upload's own error when it had failed first. */
  stop(cause: Error): Promise<unknown>;
}

/**
 * The multipart upload's part size: 8 MiB (memory about three parts), larger when 9,000 parts would not hold the
 * largest dump expected — S3 takes at most 10,000 parts, so a fixed 8 MiB would refuse dumps past 80 GB.
 */
export function partBytesFor(sizeHintBytes: number): number {
  const MiB = 1024 * 1024;
  return Math.max(8 * MiB, Math.ceil(sizeHintBytes / 9000 / MiB) * MiB);
}

function startUpload(offsite: OffsiteCall, key: string, manifest: Record<string, unknown>, timings: UploadTimings): OffsiteUpload {
  const body = new PassThrough({ highWaterMark: 1 << 20 });
  const done = uploadSealed({ ...offsite.target, prefix: '' }, key, body, offsite.backupKey, { manifest, timings, partBytes: partBytesFor(offsite.sizeHintBytes ?? 0) });
  // Settled either way; the caller reads the outcome through finish/stop.
  const outcome = done.then(
    (stored) => ({ stored, error: null }),
    (error: unknown) => ({ stored: null, error }),
  );
  return {
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        if (body.destroyed) return reject(new Error('the upload to the destination stopped'));
        // A destroyed transform may never call a write back that waits for room: its close ends the wait too.
        const closed = () => reject(new Error('the upload to the destination stopped'));
        body.once('close', closed);
        body.write(chunk, (err) => {
          body.off('close', closed);
          if (err) reject(err);
          else resolve();
        });
      }),
    finish: async () => {
      body.end();
      const r = await outcome;
      if (r.error) throw r.error instanceof OffsiteError ? failed(r.error.message) : r.error;
      return r.stored!;
    },
    stop: async (cause) => {
      // uploadSealed destroys the body itself when the upload fails: then the upload's sentence is the reason.
      const uploadFailedFirst = body.destroyed;
      if (!uploadFailedFirst) body.destroy(cause);
      const r = await outcome;
      return uploadFailedFirst ? r.error : null;
    },
  };
}
