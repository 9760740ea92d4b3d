import { randomBytes } from 'node:crypto';
import { SecretBox } from '../auth/secret-box';
import type { AgentGateway, RolloutInput } from '../ports/agents';
import type { AppJobStore, AppWithDeployment, DeploymentJobStore, DeploymentRecord, DeploymentStatus, EnvRepository } from './app.ports';
import { AppConvergeService } from './app-converge.service';
import { InProcessResourceLocks } from '../convergence/resource-locks';
import { DeploymentRunner } from './deployment-runner';
import { canMoveDeployment } from './deployment-state';
import { imageSources } from './image-sources';

const quiet = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };
const at = new Date('2026-11-24T00:00:00Z');

function deployment(over: Partial<DeploymentRecord>): DeploymentRecord {
  return {
    ...{ id: 'd-1', workspaceId: 'w-1', appId: 'a-1', number: 1, status: 'queued', source: 'image', image: 'nginx:1', imageId: null, imageRef: null },
    ...{ commitSha: null, rollbackOfId: null, failureReason: null, imageAvailable: true, containerId: null, hostPort: null, cpuMillis: 100, memoryMb: 128 },
    ...{ port: 8080, triggeredBy: null, createdAt: at, startedAt: null, finishedAt: null },
    ...over,
  };
}

/** Deployment rows in memory; every move is checked against the state table, as the production moves are. */
function setup(rows: DeploymentRecord[], o: { desiredState?: 'running' | 'stopped' } = {}) {
  const byId = new Map(rows.map((d) => [d.id, d]));
  const moves: [DeploymentStatus, DeploymentStatus][] = [];
  const stored: string[] = [];
  const storedAtLive: string[] = [];
  const move = (id: string, from: readonly DeploymentStatus[], to: DeploymentStatus, changes: Partial<DeploymentRecord> = {}) => {
    const d = byId.get(id);
    if (!d || !from.includes(d.status)) return null;
    expect(canMoveDeployment(d.status, to)).toBe(true);
    moves.push([d.status, to]);
    const next = { ...d, ...changes, status: to };
    byId.set(id, next);
    return next;
  };
  const deployments: DeploymentJobStore = {
    get: async (id) => byId.get(id) ?? null,
    move: async (id, from, to, changes) => move(id, from, to, changes),
    goLive: async (id, changes) => {
      storedAtLive.push(...stored);
      const d = move(id, ['deploying'], 'live', changes);
      if (d) Object.assign(app, { currentDeploymentId: d.id, currentDeployment: d, status: 'running' });
      return d;
    },
    revert: async () => false,
    logState: async () => ({ lastSeq: 0, bytes: 0 }),
    appendLogs: async (_id, lines) => void stored.push(...lines.map((l) => l.text)),
    withImages: async (appId) => [...byId.values()].filter((d) => d.appId === appId && d.imageId && d.imageAvailable),
    markImagesGone: async () => undefined,
    appsWithDeploymentsInFlight: async () => new Set<string>(),
  };
  const app = { id: 'a-1', workspaceId: 'w-1', kind: 'web', subdomain: 'web-w', healthPath: null, currentDeploymentId: null, currentDeployment: null, desiredState: o.desiredState ?? 'running', status: 'idle', generation: 1, deletedAt: null } as unknown as AppWithDeployment & { deletedAt: null };
  const apps: AppJobStore = {
    getById: async () => app,
    listOnNode: async () => [],
    nodeOf: async () => ({ id: 'n-1', name: 'n1', grpcAddress: '127.0.0.1:1' }),
    setState: async (_id, s) => void Object.assign(app, s),
    setStateIf: async (_id, _expected, s) => (Object.assign(app, s), true),
  };
  const rollouts: RolloutInput[] = [];
  const powers: string[] = [];
  let state = 'running';
  const prepared: { image: string; localOnly: boolean }[] = [];
  const agents = {
    // The agent names the image; core must use the tag it answers, whatever it looks like.
    prepareImage: async (_t, input) => (prepared.push({ image: input.image, localOnly: input.localOnly }), { imageId: `sha256:${input.deploymentId}`, imageRef: `agent-tag/${input.deploymentId}`, containerId: '', hostPort: 0 }),
    rolloutApp: async (_t, input, onLine) => (rollouts.push(input), onLine?.('Route web-w.apps.test → the new container'), { imageId: '', imageRef: input.imageRef, containerId: 'c-1', hostPort: 20001 }),
    listManagedContainers: async () =>
      rollouts.map((r) => ({ id: 'c-1', name: `/slipway-app-${r.deploymentId}`, image: r.imageRef, state, labels: { 'slipway.app': r.appId, 'slipway.deployment': r.deploymentId }, createdAtMs: 0 })),
    appPower: async (_t, input) => {
      powers.push(`${input.action} ${input.containerId}`);
      state = input.action === 'stop' ? 'exited' : 'running';
    },
  } as Partial<AgentGateway> as AgentGateway;
  const env: EnvRepository = { list: async () => [], replace: async () => [] };
  const secrets = new SecretBox(randomBytes(32));
  const appsDomain = { domain: 'apps.test', scheme: 'http' as const };
  const converge = new AppConvergeService({ apps, deployments, env, secrets, agents, appsDomain, clock: () => at, logger: quiet });
  const runner = new DeploymentRunner({
    apps,
    deployments,
    env,
    secrets,
    agents,
    locks: new InProcessResourceLocks(),
    converge,
    sources: imageSources({ agents, deployments }),
    appsDomain: { domain: 'apps.test', scheme: 'http' },
    clock: () => at,
    logger: quiet,
  });
  return { runner, byId, moves, rollouts, prepared, powers, app, storedAtLive };
}

describe('DeploymentRunner', () => {
  it('moves queued → building → deploying → live through the state table and rolls out the tag the agent gave', async () => {
    const { runner, byId, moves, rollouts } = setup([deployment({})]);
    expect(await runner.run('d-1')).toEqual({ status: 'live' });
    expect(moves).toEqual([
      ['queued', 'building'],
      ['building', 'deploying'],
      ['deploying', 'live'],
    ]);
    expect(rollouts[0]!.imageRef).toBe('agent-tag/d-1');
    expect(byId.get('d-1')).toMatchObject({ status: 'live', imageId: 'sha256:d-1', imageRef: 'agent-tag/d-1', containerId: 'c-1' });
  });

  it('stores every line the agent sent during the rollout before the deployment shows live (its log reads whole from then on)', async () => {
    const { runner, storedAtLive } = setup([deployment({})]);
    expect(await runner.run('d-1')).toEqual({ status: 'live' });
    expect(storedAtLive).toContain('Route web-w.apps.test → the new container');
  });

  it('a stop accepted during the deployment wins: live, but no route and the new container stopped; the app stays stopped', async () => {
    const { runner, byId, rollouts, powers, app } = setup([deployment({})], { desiredState: 'stopped' });
    expect(await runner.run('d-1')).toEqual({ status: 'live' });
    expect(byId.get('d-1')!.status).toBe('live');
    expect(rollouts[0]!.routeHost).toBe('');
    expect(powers).toEqual(['stop c-1']);
    expect(app).toMatchObject({ desiredState: 'stopped', status: 'stopped', currentDeploymentId: 'd-1' });
  });

  it('a deployment that becomes ready after a later one went live is superseded without a rollout', async () => {
    const later = deployment({ id: 'd-2', number: 2, status: 'live', containerId: 'c-2', imageId: 'sha256:2', imageRef: 'agent-tag/d-2' });
    const { runner, byId, rollouts, app } = setup([deployment({}), later]);
    Object.assign(app, { currentDeploymentId: 'd-2', currentDeployment: later });
    expect(await runner.run('d-1')).toEqual({ status: 'superseded' });
    expect(byId.get('d-1')!.status).toBe('superseded');
    expect(rollouts).toEqual([]);
  });

  it('a rollback uses the stored tag of the earlier deployment, locally only', async () => {
    const earlier = deployment({ id: 'd-0', status: 'superseded', imageId: 'sha256:old', imageRef: 'agent-tag/d-0' });
    const { runner, prepared, rollouts } = setup([earlier, deployment({ source: 'rollback', rollbackOfId: 'd-0', imageId: 'sha256:old' })]);
    expect(await runner.run('d-1')).toEqual({ status: 'live' });
    expect(prepared).toEqual([{ image: 'agent-tag/d-0', localOnly: true }]);
    expect(rollouts[0]!.imageRef).toBe('agent-tag/d-1');
  });

  it('a retried job in deploying rolls out the stored tag without preparing again', async () => {
    const { runner, prepared, rollouts } = setup([deployment({ status: 'deploying', imageId: 'sha256:x', imageRef: 'agent-tag/stored' })]);
    expect(await runner.run('d-1')).toEqual({ status: 'live' });
    expect(prepared).toEqual([]);
    expect(rollouts[0]!.imageRef).toBe('agent-tag/stored');
  });

  it('fails a deployment for good from wherever the table allows, and leaves a finished one alone', async () => {
    const { runner, byId } = setup([deployment({ status: 'building' }), deployment({ id: 'd-2', status: 'live' })]);
    await runner.failedForGood('d-1', 'stalled too often');
    await runner.failedForGood('d-2', 'stalled too often');
    expect(byId.get('d-1')).toMatchObject({ status: 'failed', failureReason: 'The deployment stopped before it finished (its worker was interrupted); deploy again' });
    expect(byId.get('d-2')!.status).toBe('live');
  });
});
