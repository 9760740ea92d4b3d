import { randomBytes } from 'node:crypto';
import { SecretBox } from '../auth/secret-box';
import type { NodeService } from '../nodes/node.service';
import type { OperationRecord, OperationStore } from '../operations/operation.ports';
import { LABELS, type AgentGateway, type AppPowerInput, type AppRoute, type ManagedContainer, type RolloutInput } from '../ports/agents';
import type { JobQueue } from '../ports/jobs';
import { ReconcileService } from '../reconcile/reconcile.service';
import { AppConvergeService, planConvergence } from './app-converge.service';
import { AppConverger } from './app-converger';
import { InProcessResourceLocks } from '../convergence/resource-locks';
import { AppPowerService } from './app-power.service';
import type { AppJobStore, AppWithDeployment, DeploymentJobStore, DeploymentRecord } from './app.ports';
import { RoutingService } from './routing.service';

const quiet = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };
const node = { id: 'n-1', name: 'n1', grpcAddress: '127.0.0.1:1' };
const longAgo = new Date('2026-11-24T00:00:00Z');
const now = new Date('2026-11-24T12:00:00Z');

function deployment(over: Partial<DeploymentRecord> = {}): DeploymentRecord {
  return {
    ...{ id: 'd-2', workspaceId: 'w-1', appId: 'a-1', number: 2, status: 'live', source: 'image', image: 'img:1', imageId: 'sha256:2', imageRef: 'slipway-app/a-1:d-2' },
    ...{ commitSha: null, rollbackOfId: null, failureReason: null, imageAvailable: true, containerId: 'c-current', hostPort: 20002, cpuMillis: 100, memoryMb: 128 },
    ...{ port: 8080, triggeredBy: null, createdAt: longAgo, startedAt: longAgo, finishedAt: longAgo },
    ...over,
  };
}

const container = (id: string, deploymentId: string, state: string): ManagedContainer => ({
  id,
  name: `/slipway-app-${deploymentId}`,
  image: `slipway-app/a-1:${deploymentId}`,
  state,
  labels: { [LABELS.workspace]: 'w-1', [LABELS.app]: 'a-1', [LABELS.deployment]: deploymentId },
  createdAtMs: longAgo.getTime(),
});

/**
 * A fake agent over an in-memory engine: what it is asked (power, rollouts, removals, routes) changes the containers
 * it lists next, as the real agent's would.
 */
function world(o: { desiredState: 'running' | 'stopped'; status: AppWithDeployment['status']; containers: ManagedContainer[]; live?: DeploymentRecord; generation?: number }) {
  let live = o.live ?? deployment();
  const app = {
    id: 'a-1',
    workspaceId: 'w-1',
    kind: 'web',
    subdomain: 'web-w',
    healthPath: null,
    desiredState: o.desiredState,
    status: o.status,
    statusDetail: null,
    generation: o.generation ?? 1,
    runningSince: null,
    deletedAt: null,
  } as unknown as AppWithDeployment & { deletedAt: null };
  let containers = [...o.containers];
  const calls: string[] = [];
  const rollouts: RolloutInput[] = [];
  const powers: AppPowerInput[] = [];
  const synced: AppRoute[][] = [];
  const current = (): AppWithDeployment & { deletedAt: null } => ({ ...app, currentDeploymentId: live.id, currentDeployment: live });
  const apps: AppJobStore = {
    getById: async () => current(),
    listOnNode: async () => [current()],
    nodeOf: async () => node,
    setState: async (_id, s) => void Object.assign(app, s),
    setStateIf: async (_id, _expected, s) => (Object.assign(app, s), true),
  };
  const deployments = {
    move: async (_id: string, _from: unknown, _to: unknown, changes: Partial<DeploymentRecord>) => (live = { ...live, ...changes }),
    appsWithDeploymentsInFlight: async () => new Set<string>(),
  } as unknown as DeploymentJobStore;
  const agents = {
    listManagedContainers: async (_t, f) => containers.filter((c) => !f?.appId || c.labels[LABELS.app] === f.appId),
    appPower: async (_t, input) => {
      calls.push(`${input.action} ${input.containerId}`);
      powers.push(input);
      const state = input.action === 'stop' ? 'exited' : 'running';
      containers = containers.map((c) => (c.id === input.containerId ? { ...c, state } : c));
    },
    rolloutApp: async (_t, input) => {
      calls.push(`rollout ${input.deploymentId}`);
      rollouts.push(input);
      containers.push(container('c-new', input.deploymentId, 'running'));
      return { imageId: 'sha256:2', imageRef: input.imageRef, containerId: 'c-new', hostPort: 20003 };
    },
    removeManagedContainers: async (_t, input) => {
      calls.push(`remove ${input.containerIds.join(',')}`);
      containers = containers.filter((c) => !input.containerIds.includes(c.id));
      return { removed: input.containerIds, skipped: [] };
    },
    syncRoutes: async (_t, routes) => (synced.push(routes), { added: routes.length, removed: 0 }),
    listWorkspaceNetworks: async () => [],
  } as Partial<AgentGateway> as AgentGateway;
  const converge = new AppConvergeService({
    apps,
    deployments,
    env: { list: async () => [{ key: 'A', value: 'b', secret: false, updatedAt: now }], replace: async () => [] },
    secrets: new SecretBox(randomBytes(32)),
    agents,
    appsDomain: { domain: 'apps.test', scheme: 'http' },
    clock: () => now,
    logger: quiet,
    stopGraceMs: 1_000,
  });
  const locks = new InProcessResourceLocks();
  const routing = new RoutingService({ apps, nodes: { list: async () => [] } as never, agents, appsDomain: { domain: 'apps.test', scheme: 'http' }, logger: quiet });
  const reconcile = new ReconcileService({
    nodes: { checkHealth: async () => ({ checked: 1, online: [], offline: [], changed: [] }), reachable: async () => [node] } as unknown as NodeService,
    owners: { existingWorkspaceIds: async (ids) => new Set(ids), deletedWorkspaces: async () => new Map() },
    operations: { listQueuedBefore: async () => [] } as unknown as OperationStore,
    agents,
    jobs: {} as JobQueue,
    logger: quiet,
    locks,
    convergers: [new AppConverger({ apps, deployments, converge, routing })],
  });
  return { app, calls, rollouts, powers, synced, converge, locks, reconcile, apps, agents, containers: () => containers, live: () => live };
}

/** What a pass did to the app itself (the node's routes apart). */
const ofApp = (report: { repairs: { kind: string }[] }) => report.repairs.filter((r) => r.kind !== 'routes');

describe('reconcile repairs (fake agent)', () => {
  it('start: the current container of an app meant to run is exited → started, the route put back, status running', async () => {
    const w = world({ desiredState: 'running', status: 'running', containers: [container('c-current', 'd-2', 'exited')] });
    const report = await w.reconcile.run('r1');
    expect(w.calls).toEqual(['start c-current']);
    expect(w.powers[0]!.route).toEqual({ appId: 'a-1', host: 'web-w.apps.test', upstreamPort: 20002 });
    // The status says crashed while the container is started, then running.
    expect(ofApp(report)).toEqual([
      { node: 'n1', resource: 'app', id: 'a-1', kind: 'status', reason: 'recorded running, the server shows crashed' },
      { node: 'n1', resource: 'app', id: 'a-1', kind: 'start', containerId: 'c-current', reason: 'the app should run and its container is exited' },
      { node: 'n1', resource: 'app', id: 'a-1', kind: 'status', reason: 'recorded crashed, the server shows running' },
    ]);
    expect(w.app.status).toBe('running');
  });

  it('recreate: the container of the current deployment is gone → a new one from its stored image, recorded on the deployment', async () => {
    const w = world({ desiredState: 'running', status: 'running', containers: [] });
    const report = await w.reconcile.run('r1');
    expect(w.calls).toEqual(['rollout d-2']);
    expect(w.rollouts[0]).toMatchObject({ deploymentId: 'd-2', imageRef: 'slipway-app/a-1:d-2', port: 8080, routeHost: 'web-w.apps.test', env: { A: 'b' } });
    expect(w.live()).toMatchObject({ containerId: 'c-new', hostPort: 20003 });
    expect(ofApp(report).map((r) => r.kind)).toEqual(['status', 'recreate', 'status']);
    expect(w.app.status).toBe('running');
  });

  it('stop: an app meant to be stopped whose container runs (started behind the platform) → stopped, status stopped', async () => {
    const w = world({ desiredState: 'stopped', status: 'stopped', containers: [container('c-current', 'd-2', 'running')] });
    const report = await w.reconcile.run('r1');
    expect(w.calls).toEqual(['stop c-current']);
    expect(report.repairs.map((r) => r.kind)).toEqual(['stop']);
    expect(w.app.status).toBe('stopped');
    // No route for a stopped app.
    expect(w.synced).toEqual([[]]);
  });

  it('remove: containers of deployments no longer current go; a running one only once it had time to drain', async () => {
    const draining = world({
      desiredState: 'running',
      status: 'running',
      live: deployment({ finishedAt: new Date(now.getTime() - 5_000) }),
      containers: [container('c-current', 'd-2', 'running'), container('c-old', 'd-1', 'running'), container('c-older', 'd-0', 'exited')],
    });
    await draining.reconcile.run('r1');
    expect(draining.calls).toEqual(['remove c-older']);

    const drained = world({ desiredState: 'running', status: 'running', containers: [container('c-current', 'd-2', 'running'), container('c-old', 'd-1', 'running')] });
    const report = await drained.reconcile.run('r1');
    expect(drained.calls).toEqual(['remove c-old']);
    expect(ofApp(report)).toEqual([{ node: 'n1', resource: 'app', id: 'a-1', kind: 'remove', reason: 'containers of deployments that are no longer current (d-1)' }]);
  });

  it('routes: the node gets the routes of its running web apps again, counted in the report', async () => {
    const w = world({ desiredState: 'running', status: 'running', containers: [container('c-current', 'd-2', 'running')] });
    const report = await w.reconcile.run('r1');
    expect(w.synced).toEqual([[{ appId: 'a-1', host: 'web-w.apps.test', upstreamPort: 20002 }]]);
    expect(report.repairs).toEqual([{ node: 'n1', resource: 'app', id: '*', kind: 'routes', reason: 'routes restored: 1 added, 0 removed' }]);
  });

  it('status both ways: a crashed app whose container runs again is running; a running app whose container Docker restarts is crashed', async () => {
    const back = world({ desiredState: 'running', status: 'crashed', containers: [container('c-current', 'd-2', 'running')] });
    // Between two crashes of a crash loop the container runs too: a crash recorded 5 s ago keeps the app crashed.
    back.app.statusDetail = { exitCode: 3, restarts: 2, message: 'boom', tail: '', at: new Date(now.getTime() - 5_000).toISOString() };
    expect(ofApp(await back.reconcile.run('r0'))).toEqual([]);
    back.app.statusDetail = { exitCode: 3, restarts: 2, message: 'boom', tail: '', at: new Date(now.getTime() - 60_000).toISOString() };
    expect(ofApp(await back.reconcile.run('r1')).map((r) => r.kind)).toEqual(['status']);
    expect(back.app).toMatchObject({ status: 'running', statusDetail: null, runningSince: now });

    const looping = world({ desiredState: 'running', status: 'running', containers: [container('c-current', 'd-2', 'restarting')] });
    const report = await looping.reconcile.run('r1');
    // Docker's restart backoff is not fought: no start, only the status.
    expect(looping.calls).toEqual([]);
    expect(ofApp(report).map((r) => r.kind)).toEqual(['status']);
    expect(looping.app.status).toBe('crashed');
  });

  it('an app whose lock is held (an operation runs) is left alone and counted busy; a deploying app keeps its status while a build runs', async () => {
    const w = world({ desiredState: 'running', status: 'running', containers: [container('c-current', 'd-2', 'exited')] });
    let release!: () => void;
    const held = w.locks.hold('app', 'a-1', () => new Promise<void>((r) => (release = r)));
    const report = await w.reconcile.run('r1');
    expect(report.busy).toEqual([{ resource: 'app', id: 'a-1' }]);
    expect(w.calls).toEqual([]);
    release();
    await held;

    const building = world({ desiredState: 'running', status: 'deploying', containers: [container('c-current', 'd-2', 'running')] });
    (building.reconcile as unknown as { deps: { convergers: { deps: { deployments: DeploymentJobStore } }[] } }).deps.convergers[0]!.deps.deployments.appsWithDeploymentsInFlight = async () => new Set(['a-1']);
    await building.reconcile.run('r1');
    expect(building.app.status).toBe('deploying');
  });

  it('a container event converges the app at once (convergeNow): the status says crashed while it starts, running once it runs', async () => {
    const w = world({ desiredState: 'running', status: 'running', containers: [container('c-current', 'd-2', 'exited')] });
    const seen: string[] = [];
    const setState = w.apps.setState.bind(w.apps);
    w.apps.setState = async (id, state) => {
      seen.push(...[state.status].filter((s) => s !== undefined));
      await setState(id, state);
    };
    expect((await w.reconcile.convergeNow(node, 'app', 'a-1', 'test'))?.map((a) => a.kind)).toEqual(['status', 'start', 'status']);
    expect(seen).toEqual(['crashed', 'running']);
    expect(w.app).toMatchObject({ status: 'running', statusDetail: null });
  });

  it('convergeNow does nothing on a server the app no longer lives on (a move left it: its container stopped there)', async () => {
    const w = world({ desiredState: 'running', status: 'running', containers: [container('c-current', 'd-2', 'exited')] });
    (w.reconcile as unknown as { deps: { owners: { placedOn: (kind: string, id: string) => Promise<string | null> } } }).deps.owners.placedOn = async () => 'another-node';
    expect(await w.reconcile.convergeNow(node, 'app', 'a-1', 'container exited')).toEqual([]);
    expect(w.calls).toEqual([]);
  });

  it('convergeNow leaves an app whose lock is held to its holder (null)', async () => {
    const w = world({ desiredState: 'running', status: 'running', containers: [container('c-current', 'd-2', 'exited')] });
    let release!: () => void;
    const held = w.locks.hold('app', 'a-1', () => new Promise<void>((r) => (release = r)));
    expect(await w.reconcile.convergeNow(node, 'app', 'a-1', 'test')).toBeNull();
    release();
    await held;
  });
});

describe('app.power reads the desired state when it runs', () => {
  const op = (action: string, generation: number) =>
    ({ id: `op-${action}-${generation}`, workspaceId: 'w-1', kind: 'app.power', payload: { workspaceId: 'w-1', appId: 'a-1', action, generation } }) as unknown as OperationRecord;

  it('a stop queued before a later start does nothing to a running app (the start was accepted last)', async () => {
    const w = world({ desiredState: 'running', status: 'running', generation: 3, containers: [container('c-current', 'd-2', 'running')] });
    const power = new AppPowerService({ apps: w.apps, agents: w.agents, converge: w.converge, locks: w.locks });
    expect(await power.power(op('stop', 2), node)).toMatchObject({ action: 'stop', superseded: true, actions: [] });
    expect(w.calls).toEqual([]);
  });

  it('a restart restarts only while it is the latest intent: the container stopped gracefully, a new one with the current variables and size', async () => {
    const w = world({ desiredState: 'running', status: 'running', generation: 5, containers: [container('c-current', 'd-2', 'running')] });
    const power = new AppPowerService({ apps: w.apps, agents: w.agents, converge: w.converge, locks: w.locks });
    await power.power(op('restart', 4), node);
    expect(w.calls).toEqual([]);
    w.app.memoryMb = 384;
    await power.power(op('restart', 5), node);
    expect(w.calls).toEqual(['stop c-current', 'rollout d-2']);
    expect(w.rollouts[0]).toMatchObject({ deploymentId: 'd-2', env: { A: 'b' }, memoryMb: 384 });
    expect(w.live()).toMatchObject({ containerId: 'c-new', memoryMb: 384 });
  });

  it('plans nothing for an app that matches (pure plan)', () => {
    const w = world({ desiredState: 'stopped', status: 'stopped', containers: [] });
    expect(planConvergence({ ...w.app, currentDeploymentId: 'd-2', currentDeployment: w.live() }, w.live(), [container('c-current', 'd-2', 'exited')])).toEqual([]);
  });
});

describe('a release that failed inside its settle window (decision 0038)', () => {
  const failed = (state: string): ManagedContainer => ({
    ...container('c-new', 'd-3', state),
    settleFailure: 'The container exited with code 5 2.0 s after it first answered',
    fallbackDeploymentId: 'd-2',
  });
  const newLive = deployment({ id: 'd-3', number: 3, containerId: 'c-new', hostPort: 20003, finishedAt: now });

  it('plans a revert to the release kept warm while it runs; without it, the failed one is any crashed container', () => {
    const w = world({ desiredState: 'running', status: 'running', containers: [] });
    const app = { ...w.app, currentDeploymentId: 'd-3', currentDeployment: newLive };
    expect(planConvergence(app, newLive, [failed('exited'), container('c-old', 'd-2', 'running')])).toEqual([
      { kind: 'revert', toDeploymentId: 'd-2', containerId: 'c-old', failedContainerId: 'c-new', since: longAgo, reason: 'The container exited with code 5 2.0 s after it first answered' },
    ]);
    expect(planConvergence(app, newLive, [failed('exited'), container('c-old', 'd-2', 'exited')]).map((s) => s.kind)).toEqual(['remove', 'start']);
    // Inside its window the agent judges it: nothing is started or recreated meanwhile.
    // However long the window (past the drain margin), the previous container stays while the new one is settling.
    expect(planConvergence(app, newLive, [{ ...container('c-new', 'd-3', 'running'), settling: true }, container('c-old', 'd-2', 'running')])).toEqual([]);
    const draining = { now, drainingUntil: new Date(now.getTime() + 30_000) };
    expect(planConvergence(app, newLive, [{ ...container('c-new', 'd-3', 'exited'), settling: true }, container('c-old', 'd-2', 'running')], draining)).toEqual([]);
  });

  it('converging records the revert (crashed with the reason, the warm one live and current) and removes the failed container', async () => {
    const w = world({ desiredState: 'running', status: 'crashed', containers: [failed('exited'), container('c-old', 'd-2', 'running')], live: newLive });
    const back = deployment({ id: 'd-2', number: 2, status: 'superseded', containerId: 'c-old' });
    const reverts: unknown[][] = [];
    const logs = new Map<string, string[]>([
      ['d-2', []],
      ['d-3', []],
    ]);
    let live = newLive;
    const deployments = {
      get: async () => back,
      revert: async (...args: unknown[]) => {
        reverts.push(args);
        live = { ...back, status: 'live' };
        w.app.status = 'running';
        return true;
      },
      logState: async () => ({ lastSeq: 0, bytes: 0 }),
      appendLogs: async (id: string, lines: { text: string }[]) => void logs.get(id)!.push(...lines.map((l) => l.text)),
      move: async () => null,
    } as unknown as DeploymentJobStore;
    const apps: AppJobStore = { ...w.apps, getById: async () => ({ ...w.app, currentDeploymentId: live.id, currentDeployment: live }) };
    const converge = new AppConvergeService({
      apps,
      deployments,
      env: { list: async () => [], replace: async () => [] },
      secrets: new SecretBox(randomBytes(32)),
      // The crash watch did not record it (the deployment is still live): the revert writes the app's last lines.
      agents: { ...w.agents, containerLogs: async () => 'exiting after 2000 ms on purpose\n' },
      appsDomain: { domain: 'apps.test', scheme: 'http' },
      clock: () => now,
      logger: quiet,
    });
    const { actions } = await converge.converge(node, 'a-1', { operationId: 'op-1' });
    const reason = 'The container exited with code 5 2.0 s after it first answered, inside its settle window: deployment #2 serves again';
    expect(reverts).toEqual([['a-1', 'd-3', 'd-2', reason, longAgo]]);
    expect(actions.map((a) => a.kind)).toEqual(['revert', 'remove']);
    expect(w.calls).toEqual(['remove c-new']);
    expect(logs.get('d-3')).toEqual([`Taken out of the route: ${reason}`, 'Last log lines:', 'exiting after 2000 ms on purpose']);
    expect(logs.get('d-2')).toEqual(['Serving again: deployment #3 failed inside its settle window (The container exited with code 5 2.0 s after it first answered)']);
  });
});
