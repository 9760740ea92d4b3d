import type { DeploymentJobStore, DeploymentRecord, DeploymentRepository, NewDeployment } from '../apps/app.ports';
import type { JobQueue } from '../ports/jobs';
import { GithubDeliveryService } from './github-delivery.service';
import type { GithubApi, GithubAppRow, GithubDeliveryRecord, GithubSourceSettings } from './github.ports';

const sha = (c: string) => c.repeat(40);
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined, child: () => silent };

function settings(over: Partial<GithubSourceSettings> = {}): GithubSourceSettings {
  return { installationId: 7, repoId: 42, repoFullName: 'acme/shop', branch: 'main', rootDir: '', autoDeploy: true, watchRootOnly: false, accessLost: false, accessLostReason: null, ...over };
}

function setup(apps: GithubAppRow[], o: { compare?: string[] | null } = {}) {
  const deliveries = new Map<string, GithubDeliveryRecord & { result?: string }>();
  const created: NewDeployment[] = [];
  const rows: { id: string; appId: string; status: string; source: string; triggeredBy: null }[] = [];
  const enqueued: string[] = [];
  const compared: string[] = [];
  const lost = new Map<string, string | null>();
  const removed: number[] = [];
  const service = new GithubDeliveryService({
    deliveries: {
      record: async () => 'recorded' as const,
      get: async (id) => deliveries.get(id) ?? null,
      finish: async (id, status, result) => void deliveries.set(id, { ...deliveries.get(id)!, status, result }),
      forget: async () => undefined,
      prune: async () => 0,
    },
    store: {
      appsOfRepository: async (repoId) => apps.filter((a) => a.github.repoId === repoId),
      appsOfInstallation: async (id) => apps.filter((a) => a.github.installationId === id),
      setAccessLost: async (ids, reason) => {
        for (const id of ids) {
          lost.set(id, reason);
          const a = apps.find((x) => x.id === id)!;
          a.github = { ...a.github, accessLost: reason !== null, accessLostReason: reason };
        }
      },
      setInstallationSuspended: async () => undefined,
      removeInstallation: async (id) => void removed.push(id),
      queuedDeployments: async (appId) => rows.filter((r) => r.appId === appId && r.status === 'queued').map((r) => ({ id: r.id, number: 1 })),
    },
    deployments: {
      create: async (d: NewDeployment) => {
        created.push(d);
        const row = { id: `d${created.length}`, appId: d.appId, status: 'queued', source: 'github', triggeredBy: null };
        rows.push(row);
        return row as unknown as DeploymentRecord;
      },
    } as unknown as DeploymentRepository,
    deploymentJobs: {
      move: async (id: string, from: readonly string[], to: string) => {
        const r = rows.find((x) => x.id === id && from.includes(x.status));
        if (r) r.status = to;
        return (r ?? null) as unknown as DeploymentRecord | null;
      },
    } as unknown as DeploymentJobStore,
    jobs: { enqueue: async (_name: string, p: { deploymentId: string }) => void enqueued.push(p.deploymentId) } as unknown as JobQueue,
    api: {
      changedFiles: async (_i: number, _r: string, base: string, head: string) => {
        compared.push(`${base}...${head}`);
        return o.compare === undefined ? [] : o.compare;
      },
    } as unknown as GithubApi,
    webUrl: 'https://github.com',
    clock: () => new Date('2026-11-25T00:00:00Z'),
    logger: silent,
  });
  const deliver = async (event: string, payload: Record<string, unknown>) => {
    const id = `del-${deliveries.size + 1}`;
    deliveries.set(id, { id, event, payload, status: 'queued' });
    return (await service.handle(id)).result;
  };
  return { deliver, created, rows, enqueued, compared, lost, removed, service, deliveries };
}

const app = (id: string, over: Partial<GithubSourceSettings> = {}): GithubAppRow => ({ id, workspaceId: 'w1', cpuMillis: 100, memoryMb: 128, port: 8080, github: settings(over) });
const push = (over: Record<string, unknown> = {}) => ({
  ref: 'refs/heads/main',
  before: sha('a'),
  after: sha('b'),
  repository: { id: 42, full_name: 'acme/shop' },
  head_commit: { id: sha('b'), message: 'fix it', url: 'https://github.com/acme/shop/commit/bbb', author: { name: 'Dev', username: 'dev' } },
  files: ['web/server.js'],
  truncated: false,
  ...over,
});

describe('GithubDeliveryService: push', () => {
  it('queues a deployment of the pushed commit for each autoDeploy app of the repository and branch', async () => {
    const t = setup([app('a1'), app('a2', { autoDeploy: false }), app('a3', { branch: 'dev' }), app('a4', { repoId: 99 })]);
    await t.deliver('push', push());
    expect(t.created.map((d) => d.appId)).toEqual(['a1']);
    expect(t.created[0]).toMatchObject({ source: 'github', commitSha: sha('b'), commit: { sha: sha('b'), message: 'fix it', author: 'dev', branch: 'main' }, triggeredBy: null });
    expect(t.enqueued).toEqual(['d1']);
  });

  it('is done once per delivery: a second run of the job does nothing', async () => {
    const t = setup([app('a1')]);
    await t.deliver('push', push());
    expect(await t.service.handle('del-1')).toEqual({ result: 'already handled' });
    expect(t.created).toHaveLength(1);
  });

  it('skips tag pushes, branch deletions and apps whose access is lost', async () => {
    const t = setup([app('a1'), app('a2', { accessLost: true, accessLostReason: 'gone' })]);
    expect(await t.deliver('push', push({ ref: 'refs/tags/v1' }))).toMatch(/not a branch/);
    expect(await t.deliver('push', push({ deleted: true, after: sha('0') }))).toMatch(/branch deleted/);
    expect(await t.deliver('push', push())).toMatch(/a2: access lost/);
    expect(t.created.map((d) => d.appId)).toEqual(['a1']);
  });

  it('watchRootOnly: deploys only when a changed file lies under rootDir', async () => {
    const t = setup([app('a1', { watchRootOnly: true, rootDir: 'web' })]);
    expect(await t.deliver('push', push({ files: ['docs/README.md', 'webby/x.js'] }))).toMatch(/nothing changed under web/);
    expect(t.created).toHaveLength(0);
    await t.deliver('push', push({ files: ['docs/README.md', 'web/index.js'] }));
    expect(t.created).toHaveLength(1);
  });

  it('watchRootOnly with a truncated payload asks the compare API, and deploys when that fails', async () => {
    const outside = setup([app('a1', { watchRootOnly: true, rootDir: 'web' })], { compare: ['docs/a.md'] });
    await outside.deliver('push', push({ truncated: true, files: [] }));
    expect(outside.compared).toEqual([`${sha('a')}...${sha('b')}`]);
    expect(outside.created).toHaveLength(0);
    const inside = setup([app('a1', { watchRootOnly: true, rootDir: 'web' })], { compare: ['web/a.js'] });
    await inside.deliver('push', push({ truncated: true, files: [] }));
    expect(inside.created).toHaveLength(1);
    const failing = setup([app('a1', { watchRootOnly: true, rootDir: 'web' })], { compare: null });
    await failing.deliver('push', push({ truncated: true, files: [] }));
    expect(failing.created).toHaveLength(1);
  });

  it('a newer push supersedes the deployment a push queued before, if it has not started', async () => {
    const t = setup([app('a1')]);
    await t.deliver('push', push());
    await t.deliver('push', push({ before: sha('b'), after: sha('c') }));
    expect(t.rows.map((r) => [r.id, r.status])).toEqual([
      ['d1', 'superseded'],
      ['d2', 'queued'],
    ]);
    t.rows[1]!.status = 'building';
    await t.deliver('push', push({ before: sha('c'), after: sha('d') }));
    expect(t.rows.map((r) => r.status)).toEqual(['superseded', 'building', 'queued']);
  });
});

describe('GithubDeliveryService: failures', () => {
  it('a failed try leaves the delivery queued for the retry; the last one marks it failed (a redelivery is taken again)', async () => {
    const t = setup([app('a1')]);
    t.deliveries.set('del-x', { id: 'del-x', event: 'push', payload: push({ repository: { id: 'not a number' } }), status: 'queued' });
    // A payload whose repository id is unusable is "no repository", not a failure: nothing to retry.
    expect(await t.service.handle('del-x')).toEqual({ result: 'no repository' });
    const broken = setup([app('a1')]);
    broken.deliveries.set('del-y', { id: 'del-y', event: 'installation', payload: { action: 'deleted', installation: {} }, status: 'queued' });
    await expect(broken.service.handle('del-y', { number: 1, final: false })).rejects.toThrow(/names no installation/);
    expect(broken.deliveries.get('del-y')?.status).toBe('queued');
    await expect(broken.service.handle('del-y', { number: 5, final: true })).rejects.toThrow(/names no installation/);
    expect(broken.deliveries.get('del-y')?.status).toBe('failed');
  });
});

describe('GithubDeliveryService: installation events', () => {
  it('deleted and suspend set accessLost with a reason; unsuspend clears what the suspension set', async () => {
    const t = setup([app('a1'), app('a2', { installationId: 8 })]);
    await t.deliver('installation', { action: 'suspend', installation: { id: 7, account: { login: 'acme' } } });
    expect(t.lost.get('a1')).toMatch(/suspended/);
    await t.deliver('installation', { action: 'unsuspend', installation: { id: 7, account: { login: 'acme' } } });
    expect(t.lost.get('a1')).toBeNull();
    await t.deliver('installation', { action: 'deleted', installation: { id: 7, account: { login: 'acme' } } });
    expect(t.lost.get('a1')).toMatch(/uninstalled from acme/);
    expect(t.removed).toEqual([7]);
    expect(t.lost.has('a2')).toBe(false);
  });

  it('installation_repositories removed / added set and clear it for the apps of those repositories', async () => {
    const t = setup([app('a1'), app('a2', { repoId: 43, repoFullName: 'acme/other' })]);
    await t.deliver('installation_repositories', { action: 'removed', installation: { id: 7 }, repositories_removed: [{ id: 42 }], repositories_added: [] });
    expect(t.lost.get('a1')).toMatch(/acme\/shop was removed/);
    expect(t.lost.has('a2')).toBe(false);
    await t.deliver('installation_repositories', { action: 'added', installation: { id: 7 }, repositories_added: [{ id: 42 }], repositories_removed: [] });
    expect(t.lost.get('a1')).toBeNull();
  });
});
