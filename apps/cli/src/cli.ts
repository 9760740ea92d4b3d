import { AppError, createEnrollmentToken, MOVES_LIMIT_MAX, MoveService, OperatorService, type MoveView } from '@slipway/core';
import { createAgentRepositories, createDb, createJobStores, databaseFigures, nodeUsages, type Db } from '@slipway/db';
import { BullJobQueue, createRedisConnection, QUEUE_NAMES, type QueueName } from '@slipway/queue';
import type { Job, JobType } from 'bullmq';
import { Command, CommanderError, Option } from 'commander';
import { ago, cpu, mem, parseDuration, table, truncate } from './format';

/** Exit codes scripts can rely on. */
export const EXIT = { ok: 0, failure: 1, usage: 2, notFound: 3, wrongState: 4 } as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export interface CliSettings {
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
}

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

const STATES = ['waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized', 'waiting-children'] as const;

/** Opens Redis and PostgreSQL only when a command needs them, and closes what it opened. */
class Resources {
  private jobsQueue: BullJobQueue | null = null;
  private connection: ReturnType<typeof createRedisConnection> | null = null;
  private database: Db | null = null;

  constructor(private readonly settings: CliSettings) {}

  get jobs(): BullJobQueue {
    if (!this.jobsQueue) {
      this.connection = createRedisConnection(this.settings.redisUrl);
      this.jobsQueue = new BullJobQueue({ connection: this.connection, prefix: this.settings.redisPrefix });
    }
    return this.jobsQueue;
  }

  get db(): Db {
    this.database ??= createDb(this.settings.databaseUrl, { max: 2 });
    return this.database;
  }

  async close(): Promise<void> {
    await this.jobsQueue?.close();
    this.connection?.disconnect();
    await this.database?.$disconnect();
  }
}

function queueName(name: string): QueueName {
  if (!(QUEUE_NAMES as readonly string[]).includes(name)) {
    throw new CliError(`no queue "${name}"; queues: ${QUEUE_NAMES.join(', ')}`, EXIT.notFound);
  }
  return name as QueueName;
}

async function findJob(r: Resources, id: string): Promise<{ job: Job; queue: QueueName }> {
  for (const q of QUEUE_NAMES) {
    const job = await r.jobs.queue(q).getJob(id);
    if (job) return { job, queue: q };
  }
  throw new CliError(`no job with id ${id}`, EXIT.notFound);
}

const iso = (ms: number | undefined | null) => (ms ? new Date(ms).toISOString() : null);

async function jobDetail(r: Resources, job: Job, queue: QueueName) {
  const logs = await r.jobs.queue(queue).getJobLogs(job.id!, 0, 999);
  return {
    id: job.id,
    name: job.name,
    queue,
    state: await job.getState(),
    data: job.data as unknown,
    attemptsMade: job.attemptsMade,
    attempts: job.opts.attempts ?? 1,
    failedReason: job.failedReason || null,
    stacktrace: job.stacktrace ?? [],
    returnValue: job.returnvalue ?? null,
    logs: logs.logs,
    createdAt: iso(job.timestamp),
    processedAt: iso(job.processedOn),
    finishedAt: iso(job.finishedOn),
  };
}

/** The `slipway-admin` program; `run` parses argv and returns the exit code. */
export function buildProgram(settings: () => CliSettings, io: CliIo) {
  let resources: Resources | null = null;
  const res = () => (resources ??= new Resources(settings()));
  const json = (value: unknown) => io.out(JSON.stringify(value, null, 2));

  const program = new Command('slipway-admin')
    .description('Operator CLI of a Slipway control plane: queues, jobs, nodes (cordon, drain), workspace moves, the database, enrollment tokens.')
    .addHelpText(
      'after',
      `\nExit codes: 0 done, 1 failed, 2 usage error, 3 not found, 4 not possible in the job's or queue's state.\nSettings: DATABASE_URL, REDIS_URL, SLIPWAY_REDIS_PREFIX (as the control plane).`,
    )
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .exitOverride()
    .enablePositionalOptions();

  program
    .command('queues')
    .description('job counts by state for every queue')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const rows = [];
      for (const name of QUEUE_NAMES) {
        const q = res().jobs.queue(name);
        const counts = await q.getJobCounts(...STATES);
        rows.push({ queue: name, paused: await q.isPaused(), counts });
      }
      if (o.json) return json(rows);
      io.out(
        table(
          ['QUEUE', 'PAUSED', 'WAITING', 'ACTIVE', 'DELAYED', 'FAILED', 'COMPLETED'],
          rows.map((r) => [r.queue, r.paused ? 'yes' : 'no', ...(['waiting', 'active', 'delayed', 'failed', 'completed'] as const).map((s) => String(r.counts[s] ?? 0))]),
        ),
      );
    });

  program
    .command('jobs')
    .description('jobs of a queue in one state, newest first')
    .argument('<queue>', `one of ${QUEUE_NAMES.join(', ')}`)
    .addOption(new Option('--state <state>', 'job state').choices(STATES).default('failed'))
    .option('--limit <n>', 'at most this many', '50')
    .option('--json', 'print JSON')
    .action(async (queue: string, o: { state: JobType; limit: string; json?: boolean }) => {
      const limit = Number(o.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new CliError('--limit must be a whole number from 1 to 10000', EXIT.usage);
      const name = queueName(queue);
      const jobs = await res().jobs.queue(name).getJobs([o.state], 0, limit - 1, false);
      const rows = jobs.filter(Boolean).map((j) => ({
        id: j.id,
        name: j.name,
        state: o.state,
        attemptsMade: j.attemptsMade,
        attempts: j.opts.attempts ?? 1,
        createdAt: iso(j.timestamp),
        failedReason: j.failedReason || null,
      }));
      if (o.json) return json(rows);
      if (rows.length === 0) return io.out(`no ${o.state} jobs in ${name}`);
      io.out(
        table(
          ['ID', 'NAME', 'STATE', 'TRIES', 'CREATED', 'REASON'],
          rows.map((r) => [r.id ?? '', r.name, r.state, `${r.attemptsMade}/${r.attempts}`, ago(r.createdAt), truncate(r.failedReason ?? '', 60)]),
        ),
      );
    });

  program
    .command('job')
    .description('one job: payload, tries, error, stack, logs')
    .argument('<id>', 'job id (the id of the row it belongs to)')
    .option('--json', 'print JSON')
    .action(async (id: string, o: { json?: boolean }) => {
      const { job, queue } = await findJob(res(), id);
      const d = await jobDetail(res(), job, queue);
      if (o.json) return json(d);
      io.out(
        [
          `id:        ${d.id}`,
          `name:      ${d.name}`,
          `queue:     ${d.queue}`,
          `state:     ${d.state}`,
          `tries:     ${d.attemptsMade}/${d.attempts}`,
          `created:   ${d.createdAt ?? '-'}`,
          `processed: ${d.processedAt ?? '-'}`,
          `finished:  ${d.finishedAt ?? '-'}`,
          `payload:   ${JSON.stringify(d.data)}`,
          ...(d.failedReason ? [`error:     ${d.failedReason}`] : []),
          ...(d.returnValue !== null ? [`result:    ${JSON.stringify(d.returnValue)}`] : []),
          ...(d.stacktrace.length ? ['stack:', ...d.stacktrace.map((s) => s.replace(/^/gm, '  '))] : []),
          ...(d.logs.length ? ['logs:', ...d.logs.map((l) => `  ${l}`)] : []),
        ].join('\n'),
      );
    });

  /** A command on one job by id: finds it, acts on it in its current state, prints the outcome as a line or as JSON. */
  const jobCommand = (name: string, description: string, act: (job: Job, id: string, state: string) => Promise<{ result: object; line: string }>) =>
    program
      .command(name)
      .description(description)
      .argument('<id>', 'job id')
      .option('--json', 'print JSON')
      .action(async (id: string, o: { json?: boolean }) => {
        const { job } = await findJob(res(), id);
        const { result, line } = await act(job, id, await job.getState());
        if (o.json) return json(result);
        io.out(line);
      });

  jobCommand('retry', 'send a failed job back to its queue for another try', async (job, id, state) => {
    if (state !== 'failed') throw new CliError(`job ${id} is ${state}; only failed jobs can be retried`, EXIT.wrongState);
    await job.retry('failed');
    return { result: { id, retried: true }, line: `job ${id} queued again` };
  });

  jobCommand('remove', 'delete a job that is not running', async (job, id, state) => {
    if (state === 'active') throw new CliError(`job ${id} is running; it cannot be removed while a worker holds it`, EXIT.wrongState);
    try {
      await job.remove();
    } catch (e) {
      throw new CliError(`job ${id} could not be removed: ${(e as Error).message}`, EXIT.wrongState);
    }
    return { result: { id, removed: true }, line: `job ${id} removed` };
  });

  for (const [verb, description] of [
    ['pause', 'stop workers from taking new jobs of a queue (running ones finish)'],
    ['resume', 'let workers take jobs of a paused queue again'],
  ] as const) {
    program
      .command(verb)
      .description(description)
      .argument('<queue>', `one of ${QUEUE_NAMES.join(', ')}`)
      .option('--json', 'print JSON')
      .action(async (queue: string, o: { json?: boolean }) => {
        const q = res().jobs.queue(queueName(queue));
        if (verb === 'pause') await q.pause();
        else await q.resume();
        const paused = await q.isPaused();
        if (o.json) return json({ queue, paused });
        io.out(`queue ${queue} ${paused ? 'paused' : 'running'}`);
      });
  }

  // Servers and moves (issue 32) through OperatorService of @slipway/core: the JSON printed here is the operator API's
  // (apps/api/src/operator, on a Unix socket). A move is a row (`moves`) and a `workspace.move` job the workers run.
  const operator = () => {
    const db = res().db;
    const stores = createJobStores(db);
    const nodes = createAgentRepositories(db).nodes;
    const clock = () => new Date();
    return new OperatorService({
      nodes,
      usages: () => nodeUsages(db),
      moves: new MoveService({ moves: stores.moves, workspaces: stores.moveWorkspaces, nodes, jobs: res().jobs, clock }),
      clock,
    });
  };
  /** A service's refusal as the CLI's: not found → 3, bad input → 2, not possible now → 4. */
  const asCli = async <T>(work: () => Promise<T>, hint = ''): Promise<T> => {
    try {
      return await work();
    } catch (e) {
      if (e instanceof AppError) {
        const code = e.code === 'not_found' ? EXIT.notFound : e.code === 'validation_failed' ? EXIT.usage : EXIT.wrongState;
        throw new CliError(`${e.message}${code === EXIT.notFound ? hint : ''}`, code);
      }
      throw e;
    }
  };
  const moveLine = (m: MoveView) => `move ${m.id}: ${m.workspace} ${m.from} → ${m.to}, ${m.state}${m.cancelRequested && m.state === 'running' ? ' (asked to stop)' : ''}`;

  const nodes = program
    .command('nodes')
    .enablePositionalOptions()
    .description(
      'servers: status (cordoned: no new workspace goes there), what runs there (workspaces, apps, databases, reservations), ' +
        'capacity, free capacity (unreserved), free disk (LOW: below its reserve, new work refused), last seen, ' +
        'and the CPU, memory and disk each server uses as its agent last measured them (metrics.collect, every minute)',
    )
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const nodes = await operator().nodes();
      if (o.json) return json(nodes);
      if (nodes.length === 0) return io.out('no nodes enrolled (slipway-admin enroll-token create, then slipway-agent join)');
      io.out(
        table(
          ['NAME', 'STATUS', 'ADDRESS', 'WORKSPACES', 'APPS', 'DATABASES', 'RESERVATIONS', 'CPU FREE/TOTAL', 'MEMORY FREE/TOTAL', 'DISK FREE/TOTAL', 'LAST SEEN', 'VERSION', 'CPU USED/FREE', 'MEMORY USED/FREE', 'DISK USED/FREE', 'MEASURED'],
          nodes.map((n) => [
            n.name,
            n.cordoned ? `${n.status},cordoned` : n.status,
            n.grpcAddress,
            String(n.placed.workspaces),
            String(n.placed.apps),
            String(n.placed.databases),
            String(n.placed.reservations),
            `${cpu(n.free.cpuMillis)}/${cpu(n.capacity.cpuMillis)}`,
            `${mem(n.free.memoryMb)}/${mem(n.capacity.memoryMb)}`,
            n.disk ? `${mem(n.disk.freeMb)}/${mem(n.disk.totalMb)}${n.disk.low ? ` LOW (reserve ${mem(n.disk.reserveMb)})` : ''}` : '-',
            ago(n.lastSeenAt),
            n.version,
            n.used ? `${cpu(n.used.cpuMillis)}/${cpu(n.used.free.cpuMillis)}` : '-',
            n.used ? `${mem(n.used.memoryMb)}/${mem(n.used.free.memoryMb)}` : '-',
            n.used ? `${mem(n.used.diskMb)}/${mem(n.used.free.diskMb)}` : '-',
            n.used ? ago(n.used.at) : '-',
          ]),
        ),
      );
    });

  /** cordon / uncordon, both as `nodes cordon NODE` and as the older top-level `cordon NODE`. */
  const cordonCommand = (parent: Command, command: 'cordon' | 'uncordon') =>
    parent
      .command(`${command} <node>`)
      .description(
        command === 'cordon'
          ? 'stop placing new workspaces on a server (what runs there runs on; nothing moves)'
          : 'place new workspaces on a cordoned server again',
      )
      .option('--json', 'print JSON')
      .action(async (name: string, o: { json?: boolean }) => {
        const cordoned = command === 'cordon';
        const node = await asCli(() => operator().cordon(name, cordoned), ' (slipway-admin nodes lists them)');
        if (o.json) return json(node);
        io.out(cordoned ? `${node.name} cordoned: no new workspace is placed there` : `${node.name} uncordoned: new workspaces may be placed there`);
      });
  for (const command of ['cordon', 'uncordon'] as const) {
    cordonCommand(nodes, command);
    cordonCommand(program, command);
  }

  nodes
    .command('drain <node>')
    .description('cordon a server, then move every workspace on it, one at a time, to the server placement picks (slipway-admin moves shows progress)')
    .option('--json', 'print JSON')
    .action(async (name: string, o: { json?: boolean }) => {
      const plan = await asCli(() => operator().drain(name), ' (slipway-admin nodes lists them)');
      if (o.json) return json(plan);
      io.out(`${plan.node} cordoned; ${plan.moves.length} workspace move${plan.moves.length === 1 ? '' : 's'} queued, run one at a time`);
      for (const m of plan.moves) io.out(`  ${moveLine(m)}`);
      for (const u of plan.unplaced) io.out(`  ${u.workspace} stays: ${u.reason}`);
    });

  const workspaces = program.command('workspaces').description('workspaces as the operator handles them');
  workspaces
    .command('move <workspace>')
    .description('move a workspace (id or slug) to another server; the move runs as a job (slipway-admin moves shows its steps)')
    .requiredOption('--to <node>', 'the server to move it to')
    .option('--json', 'print JSON')
    .action(async (ref: string, o: { to: string; json?: boolean }) => {
      const move = await asCli(() => operator().move(ref, o.to));
      if (o.json) return json(move);
      io.out(`${moveLine(move)} (queued; slipway-admin moves show ${move.id})`);
    });

  const moves = program
    .command('moves')
    .description('moves of workspaces between servers, newest first, with their state and last step')
    .enablePositionalOptions()
    .option('--limit <n>', 'at most this many', '50')
    .option('--workspace <id>', 'only the moves of this workspace (id)')
    .option('--json', 'print JSON (every step of each move)')
    .action(async (o: { limit: string; workspace?: string; json?: boolean }) => {
      const limit = Number(o.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > MOVES_LIMIT_MAX) throw new CliError(`--limit must be a whole number from 1 to ${MOVES_LIMIT_MAX}`, EXIT.usage);
      const rows = await asCli(() => operator().moves({ limit, ...(o.workspace ? { workspaceId: o.workspace } : {}) }));
      if (o.json) return json(rows);
      if (rows.length === 0) return io.out('no moves');
      io.out(
        table(
          ['MOVE', 'WORKSPACE', 'FROM', 'TO', 'STATE', 'BY', 'LAST STEP', 'ASKED', 'WHY'],
          rows.map((m) => {
            const last = m.steps.at(-1);
            return [m.id, m.workspace, m.from, m.to, m.cancelRequested && m.state === 'running' ? 'running,stopping' : m.state, m.reason, last ? `${last.step} ${last.outcome}` : '-', ago(m.createdAt), truncate(m.error ?? '', 100)];
          }),
        ),
      );
    });
  moves
    .command('show <id>')
    .description('one move with every step, its outcome and sentence')
    .option('--json', 'print JSON')
    .action(async (id: string, o: { json?: boolean }) => {
      const m = await asCli(() => operator().get(id));
      if (o.json) return json(m);
      io.out(
        [
          moveLine(m),
          `asked:     ${m.createdAt} (${m.reason})`,
          `started:   ${m.startedAt ?? '-'}`,
          `finished:  ${m.finishedAt ?? '-'}`,
          ...(m.error ? [`why:       ${m.error}`] : []),
          ...(m.steps.length ? ['steps:', ...m.steps.map((s) => `  ${s.at}  ${s.step.padEnd(14)} ${s.outcome.padEnd(8)} ${s.sentence}`)] : []),
        ].join('\n'),
      );
    });
  moves
    .command('cancel <id>')
    .description('stop a move: a queued one at once, a running one before its next step (until the switch; after it the move completes)')
    .option('--json', 'print JSON')
    .action(async (id: string, o: { json?: boolean }) => {
      const m = await asCli(() => operator().cancel(id));
      if (o.json) return json(m);
      io.out(m.state === 'cancelled' ? `move ${m.id} cancelled; ${m.workspace} stays on ${m.from}` : `move ${m.id} asked to stop; it stops before its next step and undoes what it did`);
    });

  program
    .command('database')
    .description("the control plane's PostgreSQL: its size and largest tables (deployment logs are pruned by retention)")
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const figures = await databaseFigures(res().db);
      if (o.json) return json(figures);
      io.out(`database size: ${mem(Math.round(figures.sizeBytes / 1024 / 1024))}`);
      io.out(table(['TABLE', 'SIZE', 'ROWS (ESTIMATE)'], figures.tables.map((t) => [t.name, mem(Math.round(t.bytes / 1024 / 1024)), String(t.rows)])));
    });

  // Database backups (issue 13): backups that failed and completed backups whose restore check failed.
  program
    .command('backups')
    .description('database backups that failed, nightly ones waiting to be tried again after a failure, and completed ones whose restore check failed (newest first)')
    .option('--limit <n>', 'at most this many', '50')
    .option('--json', 'print JSON')
    .action(async (o: { limit: string; json?: boolean }) => {
      const limit = Number(o.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new CliError('--limit must be a whole number from 1 to 10000', EXIT.usage);
      const rows = await createJobStores(res().db).backups.failures(limit);
      const view = rows.map((b) => ({
        id: b.id,
        workspaceId: b.workspaceId,
        databaseId: b.databaseId,
        database: b.sourceName,
        engine: b.engine,
        kind: b.kind,
        status: b.status,
        error: b.error,
        check: b.verifyStatus,
        checkMessage: b.verifyMessage,
        createdAt: b.createdAt.toISOString(),
      }));
      if (o.json) return json(view);
      if (view.length === 0) return io.out('no failed backups, no backups being tried again and no failed checks');
      io.out(
        table(
          ['BACKUP', 'DATABASE', 'ENGINE', 'KIND', 'STATUS', 'CHECK', 'MADE', 'WHY'],
          rows.map((b) => [b.id, truncate(b.sourceName, 24), b.engine, b.kind, b.status, b.verifyStatus ?? '-', ago(b.createdAt), truncate(b.error ?? b.verifyMessage ?? '', 100)]),
        ),
      );
    });

  const token = program.command('enroll-token').description('one-time tokens that let a server join');
  token
    .command('create')
    .description('make a one-time, expiring token for `slipway-agent join --url URL --token TOKEN`')
    .option('--ttl <duration>', 'lifetime: 90s, 30m, 1h, 7d', '1h')
    .option('--json', 'print JSON ({ token, expiresAt })')
    .action(async (o: { ttl: string; json?: boolean }) => {
      const ttlMs = parseDuration(o.ttl);
      if (ttlMs === null) throw new CliError(`--ttl "${o.ttl}" is not a duration like 90s, 30m, 1h or 7d`, EXIT.usage);
      const made = await createEnrollmentToken(createAgentRepositories(res().db).enrollmentTokens, ttlMs);
      if (o.json) return json({ token: made.token, expiresAt: made.expiresAt.toISOString() });
      io.out(`${made.token}\n(valid once, until ${made.expiresAt.toISOString()}; shown only now)`);
    });

  return {
    program,
    async run(argv: string[]): Promise<number> {
      try {
        if (argv.length === 0) {
          program.outputHelp();
          return EXIT.usage;
        }
        await program.parseAsync(argv, { from: 'user' });
        return EXIT.ok;
      } catch (e) {
        if (e instanceof CommanderError) {
          if (e.code === 'commander.helpDisplayed' || e.code === 'commander.help' || e.code === 'commander.version') return EXIT.ok;
          return EXIT.usage;
        }
        if (e instanceof CliError) {
          io.err(`error: ${e.message}`);
          return e.exitCode;
        }
        io.err(`error: ${(e as Error).message ?? String(e)}`);
        return EXIT.failure;
      } finally {
        await resources?.close();
      }
    },
  };
}
