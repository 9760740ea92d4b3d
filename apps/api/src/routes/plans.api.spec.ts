import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { catalogEntries, PlanCatalogConflict, PlanService } from '@slipway/core';
import { createDb, createRepositories, createSqlPool } from '@slipway/db';
import { createTestDatabase, createWorkspace, signUp } from '@slipway/testing';
import { startTestApi, type TestApi } from '@slipway/testing/api';

const run = promisify(execFile);

describe('plans, quota and suspension (real PostgreSQL, through HTTP)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  /** The newest published version of each plan in the catalog (what the API shows). */
  const newest = (slug: string) => catalogEntries().filter((e) => e.slug === slug).reduce((a, b) => (b.version > a.version ? b : a));

  describe('GET /v1/plans', () => {
    it('lists the newest version of each paid plan, cheapest first, without login', async () => {
      const res = await api.client().get('/v1/plans');
      expect(res.status).toBe(200);
      const paid = [...new Set(catalogEntries().filter((e) => e.kind === 'paid').map((e) => e.slug))].map(newest);
      expect(res.body.data.map((p: { slug: string }) => p.slug)).toEqual(paid.sort((a, b) => a.priceCents - b.priceCents).map((p) => p.slug));
      expect(res.body.data[0]).toEqual({
        id: expect.any(String),
        slug: 'starter',
        name: 'Starter',
        kind: 'paid',
        version: newest('starter').version,
        priceCents: 900,
        currency: 'USD',
        limits: { cpuMillis: 2000, memoryMb: 2048, maxMembers: 5, diskMb: 10240 },
      });
    });

    it('shows a newer version of a plan once it is published, never the older one', async () => {
      const starter = newest('starter');
      const next = starter.version + 1;
      await api.db.plan.create({ data: { ...starter, version: next, priceCents: 1200, minimums: starter.minimums as object } });
      try {
        const plans = (await api.client().get('/v1/plans')).body.data.filter((p: { slug: string }) => p.slug === 'starter');
        expect(plans).toEqual([expect.objectContaining({ version: next, priceCents: 1200 })]);
      } finally {
        await api.db.plan.deleteMany({ where: { slug: 'starter', version: next } });
      }
    });
  });

  describe('GET /v1/workspaces/{id}/plan', () => {
    it('shows the trial: status, dates, effective limits, reserved usage, overQuota, extras and minimums', async () => {
      const c = api.client();
      await signUp(c);
      const w = await createWorkspace(c);
      const res = await c.get(`/v1/workspaces/${w.id}/plan`);
      expect(res.status).toBe(200);
      const row = await api.db.workspace.findUniqueOrThrow({ where: { id: w.id } });
      expect(res.body).toEqual({
        status: 'none',
        plan: { id: row.planId, slug: 'trial', name: 'Trial', kind: 'trial', version: newest('trial').version, priceCents: 0 },
        trialEndsAt: row.trialEndsAt.toISOString(),
        graceEndsAt: row.graceEndsAt.toISOString(),
        suspendedAt: null,
        limits: { cpuMillis: 1000, memoryMb: 1024, maxMembers: 3, diskMb: 2048 },
        usage: { cpuMillis: 0, memoryMb: 0, diskMb: 0, members: 1 },
        overQuota: false,
        hasExtras: false,
        minimums: {
          app: { cpuMillis: 100, memoryMb: 128, diskMb: 512 },
          postgres: { cpuMillis: 250, memoryMb: 256, diskMb: 1024 },
          mysql: { cpuMillis: 250, memoryMb: 512, diskMb: 1024 },
          redis: { cpuMillis: 100, memoryMb: 64, diskMb: 256 },
          mongodb: { cpuMillis: 250, memoryMb: 512, diskMb: 1024 },
        },
      });
    });

    it('adds extras to the limits, sums reservations into usage and says when usage is over', async () => {
      const c = api.client();
      await signUp(c);
      const w = await createWorkspace(c);
      await api.db.workspace.update({ where: { id: w.id }, data: { extraCpuMillis: 500, extraMemoryMb: 512 } });
      await api.services.quota.reserve(w.id, { resourceType: 'app', resourceId: randomUUID(), cpuMillis: 1200, memoryMb: 1024, diskMb: 10 });
      await api.services.quota.reserve(w.id, { resourceType: 'postgres', resourceId: randomUUID(), cpuMillis: 250, memoryMb: 256, diskMb: 1024 });
      let plan = (await c.get(`/v1/workspaces/${w.id}/plan`)).body;
      expect(plan.limits).toEqual({ cpuMillis: 1500, memoryMb: 1536, maxMembers: 3, diskMb: 2048 });
      expect(plan.usage).toEqual({ cpuMillis: 1450, memoryMb: 1280, diskMb: 1034, members: 1 });
      expect(plan.hasExtras).toBe(true);
      expect(plan.overQuota).toBe(false);
      await api.db.workspace.update({ where: { id: w.id }, data: { extraCpuMillis: 0, extraMemoryMb: 0 } });
      plan = (await c.get(`/v1/workspaces/${w.id}/plan`)).body;
      expect(plan.overQuota).toBe(true);
      expect(plan.hasExtras).toBe(false);
    });

    it('is readable by every role', async () => {
      const owner = api.client();
      await signUp(owner);
      const w = await createWorkspace(owner);
      const viewer = api.client();
      const { email } = await signUp(viewer);
      await owner.post(`/v1/workspaces/${w.id}/members`, { email, role: 'viewer' });
      expect((await viewer.get(`/v1/workspaces/${w.id}/plan`)).status).toBe(200);
    });
  });

  describe('suspension after the grace period (plan.suspend-expired)', () => {
    it('suspends workspaces whose grace ended unpaid: mutations then answer 403 workspace_suspended, reads and deletion still work', async () => {
      const c = api.client();
      await signUp(c);
      const expired = await createWorkspace(c, 'Expired');
      const paid = await createWorkspace(c, 'Paid');
      const current = await createWorkspace(c, 'Current');
      const past = new Date(Date.now() - 3600_000);
      await api.db.workspace.update({ where: { id: expired.id }, data: { trialEndsAt: past, graceEndsAt: past } });
      await api.db.workspace.update({ where: { id: paid.id }, data: { trialEndsAt: past, graceEndsAt: past, billingStatus: 'active' } });

      const now = new Date();
      const first = await api.services.enforcement.suspendExpired(now);
      expect(first.suspended).toContain(expired.id);
      expect(first.suspended).not.toContain(paid.id);
      expect(first.suspended).not.toContain(current.id);
      expect((await api.services.enforcement.suspendExpired(now)).suspended).not.toContain(expired.id); // once

      const read = await c.get(`/v1/workspaces/${expired.id}`);
      expect(read.status).toBe(200);
      expect(read.body.suspended).toBe(true);
      expect((await c.get(`/v1/workspaces/${expired.id}/plan`)).body.suspendedAt).toBe(now.toISOString());
      const { email } = await signUp(api.client());
      for (const res of [
        await c.patch(`/v1/workspaces/${expired.id}`, { name: 'Still mine' }),
        await c.post(`/v1/workspaces/${expired.id}/members`, { email, role: 'viewer' }),
        await c.post(`/v1/workspaces/${expired.id}/tokens`, { name: 'ci' }),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('workspace_suspended');
      }
      expect((await c.patch(`/v1/workspaces/${paid.id}`, { name: 'Paid, renamed' })).status).toBe(200);
      expect((await c.delete(`/v1/workspaces/${expired.id}`)).status).toBe(200);
    });
  });

  describe('quota reservations (QuotaService, used by apps and databases)', () => {
    it('never passes the limit under 20 concurrent reservations; every refusal is 402 quota_exceeded with details', async () => {
      const c = api.client();
      await signUp(c);
      const w = await createWorkspace(c); // trial: 1000 millis, 1024 MB
      const attempts = Array.from({ length: 20 }, () =>
        api.services.quota
          .reserve(w.id, { resourceType: 'app', resourceId: randomUUID(), cpuMillis: 150, memoryMb: 128, diskMb: 0 })
          .then(() => 'reserved' as const)
          .catch((e: unknown) => e),
      );
      const outcomes = await Promise.all(attempts);
      const reserved = outcomes.filter((o) => o === 'reserved').length;
      const refusals = outcomes.filter((o) => o !== 'reserved') as { code: string; details: unknown[] }[];
      expect(reserved).toBe(6); // 6 × 150 = 900 ≤ 1000 < 7 × 150; memory 6 × 128 = 768
      expect(refusals).toHaveLength(14);
      const { ERROR_STATUS } = await import('../http/error-status');
      for (const r of refusals) {
        expect(r.code).toBe('quota_exceeded');
        expect(ERROR_STATUS[r.code as 'quota_exceeded']).toBe(402);
        expect(r.details).toEqual([{ resource: 'cpuMillis', requested: 150, available: 100 }]);
      }
      const sum = await api.db.reservation.aggregate({ where: { workspaceId: w.id }, _sum: { cpuMillis: true, memoryMb: true } });
      expect(sum._sum.cpuMillis).toBe(900);
      expect(sum._sum.cpuMillis!).toBeLessThanOrEqual(1000);
      expect((await c.get(`/v1/workspaces/${w.id}/plan`)).body.usage).toMatchObject({ cpuMillis: 900, memoryMb: 768 });
    });

    it('resizes in place (the old size does not count against the new one) and releases', async () => {
      const c = api.client();
      await signUp(c);
      const w = await createWorkspace(c);
      const app = randomUUID();
      await api.services.quota.reserve(w.id, { resourceType: 'app', resourceId: app, cpuMillis: 800, memoryMb: 512, diskMb: 0 });
      await api.services.quota.reserve(w.id, { resourceType: 'app', resourceId: app, cpuMillis: 1000, memoryMb: 1024, diskMb: 0 });
      await expect(api.services.quota.reserve(w.id, { resourceType: 'app', resourceId: app, cpuMillis: 1001, memoryMb: 1024, diskMb: 0 })).rejects.toMatchObject({
        code: 'quota_exceeded',
        details: [{ resource: 'cpuMillis', requested: 1001, available: 1000 }],
      });
      expect((await c.get(`/v1/workspaces/${w.id}/plan`)).body.usage).toMatchObject({ cpuMillis: 1000, memoryMb: 1024 });
      expect(await api.services.quota.release(w.id, app)).toBe(true);
      expect(await api.services.quota.release(w.id, app)).toBe(false);
      expect((await c.get(`/v1/workspaces/${w.id}/plan`)).body.usage).toMatchObject({ cpuMillis: 0, memoryMb: 0 });
    });

    it('refuses a deleted workspace', async () => {
      const c = api.client();
      await signUp(c);
      const w = await createWorkspace(c);
      await c.delete(`/v1/workspaces/${w.id}`);
      await expect(api.services.quota.reserve(w.id, { resourceType: 'app', resourceId: randomUUID(), cpuMillis: 100, memoryMb: 128, diskMb: 0 })).rejects.toMatchObject({
        code: 'not_found',
      });
    });
  });
});

describe('plan catalog seeding', () => {
  it('inserts missing versions, is idempotent, and refuses a file that changes a published version', async () => {
    const database = await createTestDatabase();
    const db = createDb(database.url);
    try {
      const sql = createSqlPool(database.url);
      const repos = createRepositories(db, sql);
      const entries = catalogEntries();
      const seeder = (e = entries) => new PlanService({ plans: repos.plans, reservations: repos.reservations, entries: e });
      expect(await seeder().seed()).toEqual({ plans: entries.length });
      expect(await seeder().seed()).toEqual({ plans: entries.length });
      expect(await db.plan.count()).toBe(entries.length);

      const edited = entries.map((e) => ({ ...e, priceCents: e.priceCents + Number(e.slug === 'pro') * 100 }));
      const thrown = await seeder(edited).seed().catch((e: unknown) => e);
      expect(thrown).toBeInstanceOf(PlanCatalogConflict);
      expect((thrown as Error).message).toMatch(/pro v1: priceCents: stored 2900, file 3000/);
      expect((await db.plan.findFirstOrThrow({ where: { slug: 'pro', version: 1 } })).priceCents).toBe(2900);
      await sql.end();
    } finally {
      await db.$disconnect();
      await database.drop();
    }
  });

  it('stops the API at start-up, loudly, when a published plan differs from the file', async () => {
    const database = await createTestDatabase();
    const db = createDb(database.url);
    try {
      const starter = catalogEntries().find((e) => e.slug === 'starter')!;
      await db.plan.create({ data: { ...starter, memoryMb: 4096, minimums: starter.minimums as object } });
      const failure = await run('npx', ['tsx', path.resolve(__dirname, '../main.ts')], {
        env: { ...process.env, DATABASE_URL: database.url, SLIPWAY_API_PORT: '0', SLIPWAY_LOG_LEVEL: 'silent', SLIPWAY_REDIS_PREFIX: `seed-${Date.now()}` },
        timeout: 60_000,
      }).catch((e: { code: number; stderr: string }) => e);
      expect((failure as { code: number }).code).toBe(1);
      expect(String((failure as { stderr: string }).stderr)).toMatch(/published plan versions[\s\S]*starter v1: memoryMb: stored 4096, file 2048/);
    } finally {
      await db.$disconnect();
      await database.drop();
    }
  }, 90_000);
});
