// slipway db: managed databases, their connection, public TLS access, backups, and a shell through the public port.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError, unwrap, type Schemas } from '@slipway/api-client';
import { type Command, Option } from 'commander';
import { isUuid, type Context } from '../context';
import { ago, bytes, CliError, colours, EXIT, fields, note, printJson, say, statusColour, table } from '../output';
import { action, example } from '../program-kit';
import { parseCpu, parseMegabytes } from '../parse';

type Database = Schemas['Database'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function findDatabase(ctx: Context, ref: string): Promise<Database> {
  const workspaceId = await ctx.workspaceId();
  if (isUuid(ref)) return unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/databases/{databaseId}', { params: { path: { workspaceId, databaseId: ref } } }));
  const list = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/databases', { params: { path: { workspaceId } } }));
  const db = list.data.find((d) => d.name === ref || d.slug === ref);
  if (!db) throw new CliError(`No database ${ref} in this workspace`, EXIT.notFound, 'not_found');
  return db;
}

/** Polls the database until it leaves the transitional states; fails unless it ends `want`. */
async function settle(ctx: Context, db: Database, want: Database['status'], timeoutMs = 300_000): Promise<Database> {
  const deadline = Date.now() + timeoutMs;
  let current = db;
  while (['provisioning', 'updating', 'restoring', 'deleting'].includes(current.status) || (current.status !== want && current.desiredState === (want === 'stopped' ? 'stopped' : 'running') && current.status !== 'failed')) {
    if (Date.now() > deadline) throw new CliError(`${db.name} is still ${current.status} after ${timeoutMs / 1000} s`, EXIT.failed, 'timeout');
    await sleep(1000);
    current = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/databases/{databaseId}', { params: { path: { workspaceId: db.workspaceId, databaseId: db.id } } }));
  }
  if (current.status !== want) throw new CliError(`${db.name} is ${current.status}${current.statusMessage ? `: ${current.statusMessage}` : ''}`, EXIT.failed, `database_${current.status}`);
  return current;
}

function showDatabase(db: Database): void {
  fields([
    ['name', `${db.name} (${db.slug})`],
    ['id', db.id],
    ['engine', `${db.engine} ${db.version}`],
    ['status', `${statusColour(db.status)}${db.statusMessage ? ` (${db.statusMessage})` : ''}`],
    ['internal', `${db.internalHost}:${db.port} (from the workspace's apps)`],
    ['public', db.public.enabled ? `${db.public.host}:${db.public.port} over TLS, from ${db.public.allowedCidrs.join(', ')}` : 'off'],
    ['size', `${db.cpuMillis / 1000} vCPU, ${db.memoryMb} MB memory, ${db.diskMb} MB disk`],
  ]);
}

async function findBackup(ctx: Context, db: Database, ref: string): Promise<Schemas['Backup']> {
  const p = { workspaceId: db.workspaceId, databaseId: db.id };
  if (isUuid(ref)) return unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/databases/{databaseId}/backups/{backupId}', { params: { path: { ...p, backupId: ref } } }));
  const page = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/databases/{databaseId}/backups', { params: { path: p, query: { limit: 100 } } }));
  const found = ref === 'latest' ? page.data.find((b) => b.status === 'completed') : page.data.find((b) => b.id.startsWith(ref));
  if (!found) throw new CliError(`No backup ${ref} of ${db.name}`, EXIT.notFound, 'not_found');
  return found;
}

const SHELLS: Record<Database['engine'], string> = { postgres: 'psql', mysql: 'mariadb', redis: 'redis-cli', mongodb: 'mongosh' };

export function dbCommands(program: Command): void {
  const db = program.command('db').description('Managed databases: PostgreSQL, MySQL, Redis');
  example(db, 'slipway db create main --engine postgres', 'slipway db shell main');

  example(
    db
      .command('create')
      .description('Create a database and wait until it runs')
      .argument('<name>')
      .addOption(new Option('--engine <engine>').choices(['postgres', 'mysql', 'redis', 'mongodb']).default('postgres'))
      .option('--version <version>', 'the engine version (default: the newest this platform runs)')
      .option('--memory <size>', 'reserved memory', '256')
      .option('--cpu <amount>', 'reserved vCPU')
      .option('--disk <size>', 'disk')
      .option('--no-wait', 'return while it is provisioning'),
    'slipway db create main --engine postgres --memory 512M',
  ).action(
    action({}, async (ctx: Context, o: { engine: Database['engine']; version?: string; memory: string; cpu?: string; disk?: string; wait: boolean }, name: string) => {
      const workspaceId = await ctx.workspaceId();
      const body: Schemas['CreateDatabaseRequest'] = {
        name,
        engine: o.engine,
        memoryMb: parseMegabytes(o.memory),
        ...(o.version ? { version: o.version } : {}),
        ...(o.cpu ? { cpuMillis: parseCpu(o.cpu) } : {}),
        ...(o.disk ? { diskMb: parseMegabytes(o.disk) } : {}),
      };
      let created = await unwrap(ctx.api.POST('/v1/workspaces/{workspaceId}/databases', { params: { path: { workspaceId } }, body }));
      if (o.wait) created = await settle(ctx, created, 'running');
      if (ctx.json) return printJson(created);
      say(`${colours.bold(created.name)} (${created.engine} ${created.version}): ${statusColour(created.status)}`);
    }),
  );

  example(db.command('list').alias('ls').description('Databases of the workspace'), 'slipway db list').action(
    action({}, async (ctx: Context) => {
      const workspaceId = await ctx.workspaceId();
      const list = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/databases', { params: { path: { workspaceId } } }));
      if (ctx.json) return printJson(list);
      table(['name', 'engine', 'status', 'public', 'size'], list.data.map((d) => [d.name, `${d.engine} ${d.version}`, statusColour(d.status), d.public.enabled ? `${d.public.host}:${d.public.port}` : 'off', `${d.memoryMb} MB`]), 'no databases: slipway db create NAME');
    }),
  );

  example(db.command('show').description('A database').argument('<db>'), 'slipway db show main').action(
    action({}, async (ctx: Context, _o: unknown, ref: string) => {
      const d = await findDatabase(ctx, ref);
      if (ctx.json) return printJson(d);
      showDatabase(d);
    }),
  );

  example(db.command('url').description('The connection URL (the public one with --public)').argument('<db>').option('--public', 'the URL of the public TLS port'), 'slipway db url main').action(
    action({}, async (ctx: Context, o: { public?: boolean }, ref: string) => {
      const d = await findDatabase(ctx, ref);
      const c = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/databases/{databaseId}/connection', { params: { path: { workspaceId: d.workspaceId, databaseId: d.id } } }));
      if (ctx.json) return printJson(c);
      if (o.public && !c.publicUrl) throw new CliError(`${d.name} has no public access: slipway db public ${d.name} --allow CIDR`, EXIT.wrongState, 'not_public');
      say(o.public ? c.publicUrl! : c.url);
    }),
  );

  example(db.command('connect').description("Store the connection URL as a secret variable of an app (applies at its next deployment or restart)").argument('<db>').argument('<app>').option('--variable <name>', 'the variable (default: DATABASE_URL, REDIS_URL, …)'), 'slipway db connect main web').action(
    action({}, async (ctx: Context, o: { variable?: string }, ref: string, appRef: string) => {
      const d = await findDatabase(ctx, ref);
      const app = await ctx.app(appRef);
      const r = await unwrap(ctx.api.POST('/v1/workspaces/{workspaceId}/databases/{databaseId}/connect', { params: { path: { workspaceId: d.workspaceId, databaseId: d.id } }, body: { appId: app.id, ...(o.variable ? { variable: o.variable } : {}) } }));
      if (ctx.json) return printJson(r);
      say(`${app.name} has ${r.variable} now; it applies at its next deployment or restart (slipway restart ${app.slug})`);
    }),
  );

  example(db.command('rotate').description('A new password, applied in the running engine; the old one stops working').argument('<db>'), 'slipway db rotate main').action(
    action({}, async (ctx: Context, _o: unknown, ref: string) => {
      const d = await findDatabase(ctx, ref);
      const r = await unwrap(ctx.api.POST('/v1/workspaces/{workspaceId}/databases/{databaseId}/rotate-password', { params: { path: { workspaceId: d.workspaceId, databaseId: d.id } } }));
      if (ctx.json) return printJson(r);
      say(`New password for ${d.name}; apps connected with slipway db connect get it at their next restart`);
    }),
  );

  example(
    db.command('public').description('Public access over TLS from the given address ranges, or --off').argument('<db>').option('--allow <cidr...>', 'address ranges, e.g. 203.0.113.7/32').option('--off', 'switch public access off'),
    'slipway db public main --allow 203.0.113.7/32',
    'slipway db public main --off',
  ).action(
    action({}, async (ctx: Context, o: { allow?: string[]; off?: boolean }, ref: string) => {
      if (!o.off && !o.allow?.length) throw new CliError('Give --allow CIDR (repeatable) or --off', EXIT.usage, 'nothing_to_change');
      const d = await findDatabase(ctx, ref);
      const body = o.off ? { enabled: false } : { enabled: true, allowedCidrs: o.allow };
      const updated = await unwrap(ctx.api.PUT('/v1/workspaces/{workspaceId}/databases/{databaseId}/public', { params: { path: { workspaceId: d.workspaceId, databaseId: d.id } }, body }));
      if (ctx.json) return printJson(updated);
      say(updated.public.enabled ? `${d.name} answers on ${updated.public.host}:${updated.public.port} over TLS from ${updated.public.allowedCidrs.join(', ')}` : `${d.name}: public access off`);
    }),
  );

  for (const verb of ['stop', 'start'] as const) {
    example(db.command(verb).description(verb === 'stop' ? 'Stop the engine (reservation and data stay)' : 'Start it again on its data').argument('<db>').option('--no-wait', 'return at once'), `slipway db ${verb} main`).action(
      action({}, async (ctx: Context, o: { wait: boolean }, ref: string) => {
        const d = await findDatabase(ctx, ref);
        const p = { params: { path: { workspaceId: d.workspaceId, databaseId: d.id } } };
        let r = verb === 'stop' ? await unwrap(ctx.api.POST('/v1/workspaces/{workspaceId}/databases/{databaseId}/stop', p)) : await unwrap(ctx.api.POST('/v1/workspaces/{workspaceId}/databases/{databaseId}/start', p));
        if (o.wait) r = await settle(ctx, r, verb === 'stop' ? 'stopped' : 'running');
        if (ctx.json) return printJson(r);
        say(`${d.name}: ${statusColour(r.status)}`);
      }),
    );
  }

  example(db.command('rm').description('Delete a database and its data (its backups stay until they expire)').argument('<db>').option('--yes', 'do not ask'), 'slipway db rm old --yes').action(
    action({}, async (ctx: Context, o: { yes?: boolean }, ref: string) => {
      const d = await findDatabase(ctx, ref);
      if (!o.yes) throw new CliError(`Deleting ${d.name} erases its data: pass --yes`, EXIT.usage, 'confirmation_required');
      const r = await unwrap(ctx.api.DELETE('/v1/workspaces/{workspaceId}/databases/{databaseId}', { params: { path: { workspaceId: d.workspaceId, databaseId: d.id } } }));
      if (ctx.json) return printJson(r);
      say(`Deleted ${d.name}`);
    }),
  );

  example(db.command('backups').description('Backups of a database, newest first').argument('<db>'), 'slipway db backups main').action(
    action({}, async (ctx: Context, _o: unknown, ref: string) => {
      const d = await findDatabase(ctx, ref);
      const page = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/databases/{databaseId}/backups', { params: { path: { workspaceId: d.workspaceId, databaseId: d.id }, query: { limit: 50 } } }));
      if (ctx.json) return printJson(page);
      table(['id', 'kind', 'status', 'size', 'created', 'verified'], page.data.map((b) => [b.id, b.kind, statusColour(b.status), b.sizeBytes === null ? null : bytes(b.sizeBytes), ago(b.createdAt), b.verification.status]), 'no backups yet: slipway db backup ' + d.slug);
    }),
  );

  example(db.command('backup').description('Back up now and wait until it completes').argument('<db>').option('--no-wait', 'return at once'), 'slipway db backup main').action(
    action({}, async (ctx: Context, o: { wait: boolean }, ref: string) => {
      const d = await findDatabase(ctx, ref);
      const p = { workspaceId: d.workspaceId, databaseId: d.id };
      let b = await unwrap(ctx.api.POST('/v1/workspaces/{workspaceId}/databases/{databaseId}/backups', { params: { path: p } }));
      const deadline = Date.now() + 600_000;
      while (o.wait && (b.status === 'pending' || b.status === 'running') && Date.now() < deadline) {
        await sleep(1000);
        b = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/databases/{databaseId}/backups/{backupId}', { params: { path: { ...p, backupId: b.id } } }));
      }
      if (ctx.json) printJson(b);
      if (b.status === 'failed') throw new CliError(`Backup ${b.id} failed: ${b.error ?? 'no reason given'}`, EXIT.failed, 'backup_failed');
      if (!ctx.json) say(`Backup ${b.id}: ${statusColour(b.status)}${b.sizeBytes !== null ? ` (${bytes(b.sizeBytes)})` : ''}`);
    }),
  );

  example(
    db
      .command('restore')
      .description('Restore a backup into a new database, into the same one, or download its file')
      .argument('<db>')
      .argument('<backup>', "the backup's id (or the start of it), or latest")
      .addOption(new Option('--into <target>', 'new: a new database; same: replace the data (a backup of it is taken first); download: a file').choices(['new', 'same', 'download']).makeOptionMandatory())
      .option('-o, --output <file>', 'with --into download: the file (default: <db>-<backup>.dump)')
      .option('--no-wait', 'return at once'),
    'slipway db restore main latest --into new',
    'slipway db restore main 5f1c --into download -o main.dump',
  ).action(
    action({}, async (ctx: Context, o: { into: 'new' | 'same' | 'download'; output?: string; wait: boolean }, ref: string, backupRef: string) => {
      const d = await findDatabase(ctx, ref);
      const b = await findBackup(ctx, d, backupRef);
      const p = { workspaceId: d.workspaceId, databaseId: d.id, backupId: b.id };
      if (o.into === 'download') {
        const res = await ctx.api.GET('/v1/workspaces/{workspaceId}/databases/{databaseId}/backups/{backupId}/download', { params: { path: p }, parseAs: 'stream' });
        if (!res.response.ok || !res.data) throw ApiError.from(res.response.status, res.error, res.response.statusText);
        const target = path.resolve(ctx.cwd, o.output ?? `${d.slug}-${b.id.slice(0, 8)}.dump`);
        await pipeline(Readable.fromWeb(res.data as import('node:stream/web').ReadableStream), createWriteStream(target));
        if (ctx.json) return printJson({ file: target, backup: b });
        return say(`Wrote ${target}${res.response.headers.get('x-checksum-sha256') ? ` (sha256 ${res.response.headers.get('x-checksum-sha256')})` : ''}`);
      }
      const r = await unwrap(ctx.api.POST('/v1/workspaces/{workspaceId}/databases/{databaseId}/backups/{backupId}/restore', { params: { path: p }, body: { target: o.into } }));
      let restored: Database | undefined;
      if (o.wait) {
        const target = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/databases/{databaseId}', { params: { path: { workspaceId: d.workspaceId, databaseId: r.databaseId } } }));
        restored = await settle(ctx, target, 'running', 600_000);
      }
      if (ctx.json) return printJson(r);
      say(o.into === 'new' ? `Restored into the new database ${restored?.name ?? r.databaseId}` : `Restored ${d.name}${r.preRestoreBackupId ? ` (its data before: backup ${r.preRestoreBackupId})` : ''}`);
    }),
  );

  example(
    db
      .command('shell')
      .description("A psql, mariadb or redis-cli session through the public TLS port, verifying the platform's database CA")
      .argument('<db>')
      .argument('[args...]', 'more arguments for the client, after --'),
    'slipway db shell main',
    'slipway db shell main -- -c "SELECT now()"',
  ).action(
    action({}, async (ctx: Context, _o: unknown, ref: string, extra: string[]) => {
      const d = await findDatabase(ctx, ref);
      if (!d.public.enabled || !d.public.host || !d.public.port) throw new CliError(`${d.name} has no public access: slipway db public ${d.slug} --allow YOUR.IP/32`, EXIT.wrongState, 'not_public');
      const c = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/databases/{databaseId}/connection', { params: { path: { workspaceId: d.workspaceId, databaseId: d.id } } }));
      const ca = await ctx.api.GET('/v1/database-ca.pem', { parseAs: 'text' });
      if (!ca.response.ok || typeof ca.data !== 'string') throw ApiError.from(ca.response.status, ca.error, ca.response.statusText);
      const dir = await mkdtemp(path.join(tmpdir(), 'slipway-db-'));
      const caFile = path.join(dir, 'ca.pem');
      await writeFile(caFile, ca.data, { mode: 0o600 });
      const host = d.public.host;
      const port = String(d.public.port);
      // argv arrays only; the password travels in the environment, never on the command line.
      const shell: { cmd: string; args: string[]; env: Record<string, string> } =
        d.engine === 'postgres'
          ? { cmd: 'psql', args: extra, env: { PGHOST: host, PGPORT: port, PGUSER: c.username, PGPASSWORD: c.password, PGDATABASE: c.databaseName, PGSSLMODE: 'verify-full', PGSSLROOTCERT: caFile } }
          : d.engine === 'mysql'
            ? { cmd: 'mariadb', args: ['--no-defaults', '-h', host, '-P', port, '-u', c.username, '--ssl', `--ssl-ca=${caFile}`, '--ssl-verify-server-cert', ...extra, c.databaseName], env: { MYSQL_PWD: c.password } }
            : d.engine === 'redis'
              ? { cmd: 'redis-cli', args: ['-h', host, '-p', port, '--tls', '--cacert', caFile, '--no-auth-warning', ...extra], env: { REDISCLI_AUTH: c.password } }
              : { cmd: 'mongosh', args: [c.publicUrl ?? '', '--tls', '--tlsCAFile', caFile, ...extra], env: {} };
      if (!ctx.json) note(colours.dim(`${SHELLS[d.engine]} → ${host}:${port} (TLS, verified against the platform's database CA)`));
      const code = await new Promise<number>((resolve, reject) => {
        const child = spawn(shell.cmd, shell.args, { stdio: 'inherit', env: { ...process.env, ...shell.env } });
        child.on('error', (e: NodeJS.ErrnoException) => reject(e.code === 'ENOENT' ? new CliError(`${shell.cmd} is not installed here: install it to use db shell`, EXIT.failed, 'client_missing') : e));
        child.on('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0)));
      }).finally(() => rm(dir, { recursive: true, force: true }));
      if (code !== 0) throw new CliError(`${shell.cmd} exited with ${code}`, code, 'client_failed');
    }),
  );
}
