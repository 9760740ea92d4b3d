// The control-plane jobs of issue #3 through the real queue: BullMQ on Redis, the worker runtime, PostgreSQL.
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { openTestCa } from '@slipway/testing/agent';
import { catalogEntries, PLAN_SUSPEND_EXPIRED_EVERY_MS, WORKSPACE_TEARDOWN_JOB, type Logger } from '@slipway/core';
import { createDb, createRepositories, createSqlPool, type Db, type SqlPool } from '@slipway/db';
import { createTestDatabase, TEST_SERVICES, type TestDatabase } from '@slipway/testing';
import { startWorkerRuntime, type WorkerRuntime } from './runtime';
import { testConfig, testEnv, uniquePrefix, waitFor, waitUntil } from '@slipway/testing/worker';

jest.setTimeout(120_000);

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };

describe('workspace.teardown and plan.suspend-expired (real BullMQ, Redis and PostgreSQL)', () => {
  let database: TestDatabase;
  let db: Db;
  let sql: SqlPool;
  let caDir: string;
  let runtime: WorkerRuntime;
  let planId: string;
  const prefix = uniquePrefix('control-jobs');

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url);
    sql = createSqlPool(database.url);
    const trial = catalogEntries().find((e) => e.slug === 'trial')!;
    planId = (await db.plan.create({ data: { ...trial, minimums: trial.minimums as object } })).id;
    caDir = (await openTestCa()).dir;
    runtime = await startWorkerRuntime(testConfig(testEnv({ databaseUrl: database.url, redisUrl: TEST_SERVICES.redisUrl, prefix, dataDir: caDir })), quiet, {
      events: false,
      schedule: false,
    });
  });

  afterAll(async () => {
    await runtime?.jobs.queue('maintenance').obliterate({ force: true }).catch(() => undefined);
    await runtime?.close();
    await sql?.end();
    await db?.$disconnect();
    await database?.drop();
    await rm(caDir, { recursive: true, force: true });
  });

  async function workspace(name: string, data: { graceEndsAt?: Date; billingStatus?: string } = {}) {
    const user = await db.user.create({ data: { email: `${randomUUID()}@example.test`, name, passwordHash: 'x' } });
    const w = await db.workspace.create({
      data: {
        name,
        slug: `${name.toLowerCase()}-${randomUUID().slice(0, 8)}`,
        planId,
        trialEndsAt: new Date(),
        graceEndsAt: data.graceEndsAt ?? new Date(Date.now() + 86_400_000),
        billingStatus: data.billingStatus ?? 'none',
        memberships: { create: { userId: user.id, role: 'owner' } },
      },
    });
    return { user, w };
  }

  it('tears a deleted workspace down through the queue and marks its operation succeeded', async () => {
    const { user, w } = await workspace('Doomed');
    await db.apiToken.create({ data: { workspaceId: w.id, createdById: user.id, name: 't', tokenHash: new Uint8Array(32), prefix: 'svc_x' } });
    await db.reservation.create({ data: { workspaceId: w.id, resourceType: 'app', resourceId: randomUUID(), cpuMillis: 100, memoryMb: 128 } });
    const marked = await createRepositories(db, sql).workspaces.markDeleted({ workspaceId: w.id }, { kind: WORKSPACE_TEARDOWN_JOB }, new Date());
    const operationId = marked!.operationId;

    // As the reconciler re-queues a stranded row: the operation id alone is enough.
    await runtime.jobs.add('workspace.teardown', { operationId }, { jobId: operationId });
    const op = await waitUntil(() => db.operation.findUniqueOrThrow({ where: { id: operationId } }), (row) => row.status === 'succeeded', 30_000, 'the teardown operation to succeed');
    // Not placed on a server here: nothing to remove there (the server side: apps/api/src/workspaces-on-server.int.spec.ts).
    expect(op.result).toEqual({ server: null, apps: 0, databases: 0, tokens: 1, memberships: 1, reservations: 1 });
    const where = { workspaceId: w.id };
    expect([await db.apiToken.count({ where }), await db.membership.count({ where }), await db.reservation.count({ where })]).toEqual([0, 0, 0]);
  });

  it('suspends workspaces whose grace ended unpaid when plan.suspend-expired runs, and schedules it every 10 minutes', async () => {
    const expired = await workspace('Expired', { graceEndsAt: new Date(Date.now() - 60_000) });
    const paid = await workspace('Paid', { graceEndsAt: new Date(Date.now() - 60_000), billingStatus: 'active' });

    await runtime.jobs.add('plan.suspend-expired', {}, { jobId: `suspend-${randomUUID()}` });
    await waitFor(async () => (await db.workspace.findUniqueOrThrow({ where: { id: expired.w.id } })).suspendedAt, 30_000, 'the suspension');
    expect((await db.workspace.findUniqueOrThrow({ where: { id: paid.w.id } })).suspendedAt).toBeNull();

    expect(await runtime.jobs.scheduleRepeatable()).toContain('plan.suspend-expired');
    const schedulers = await runtime.jobs.queue('maintenance').getJobSchedulers();
    expect(schedulers.find((s) => s.name === 'plan.suspend-expired')).toMatchObject({ every: PLAN_SUSPEND_EXPIRED_EVERY_MS });
  });

  it('registers a cron-pattern schedule as a BullMQ job scheduler (what nightly backups need)', async () => {
    expect(await runtime.jobs.scheduleRepeatable({ 'plan.suspend-expired': { pattern: '0 3 * * *' } })).toContain('plan.suspend-expired');
    const schedulers = await runtime.jobs.queue('maintenance').getJobSchedulers();
    expect(schedulers.find((s) => s.name === 'plan.suspend-expired')).toMatchObject({ pattern: '0 3 * * *', tz: 'UTC' });
  });
});
