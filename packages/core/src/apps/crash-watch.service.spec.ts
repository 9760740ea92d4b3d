import type { AgentGateway, ContainerExitEvent } from '../ports/agents';
import type { AppJobStore, AppStateChange, AppWithDeployment, DeploymentJobStore, DeploymentRecord, DeploymentStatus, LogLineRecord } from './app.ports';
import { CrashWatchService } from './crash-watch.service';
import { canMoveDeployment } from './deployment-state';

const quiet = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };
const liveAt = new Date('2026-11-24T20:00:00Z');

function setup(status: DeploymentStatus = 'live') {
  let d = { id: 'd-1', appId: 'a-1', status, finishedAt: liveAt, failureReason: null } as unknown as DeploymentRecord;
  const app = { id: 'a-1', currentDeploymentId: 'd-1', desiredState: 'running', status: 'running', statusDetail: null, deletedAt: null } as unknown as AppWithDeployment & { deletedAt: null };
  const states: AppStateChange[] = [];
  const logs: LogLineRecord[] = [];
  const apps = { getById: async () => ({ ...app, currentDeployment: d }), setState: async (_id: string, s: AppStateChange) => void states.push(s), setStateIf: async (_id: string, _e: unknown, s: AppStateChange) => (states.push(s), true) } as unknown as AppJobStore;
  const deployments: Pick<DeploymentJobStore, 'move' | 'logState' | 'appendLogs'> = {
    move: async (_id, from, to, changes) => {
      if (!from.includes(d.status)) return null;
      expect(canMoveDeployment(d.status, to)).toBe(true);
      d = { ...d, ...changes, status: to };
      return d;
    },
    logState: async () => ({ lastSeq: 7, bytes: 0 }),
    appendLogs: async (_id, lines) => void logs.push(...lines),
  };
  const agents = { containerLogs: async () => 'starting\nexiting after 6000 ms on purpose\n' } as Partial<AgentGateway> as AgentGateway;
  const watch = new CrashWatchService({ apps, deployments, agents, clock: () => new Date(), logger: quiet });
  const exit = (afterMs: number, exitCode = 5): ContainerExitEvent => ({
    containerId: 'c-1',
    action: 'die',
    exitCode,
    labels: { 'slipway.app': 'a-1', 'slipway.deployment': 'd-1' },
    atMs: liveAt.getTime() + afterMs,
  });
  return { watch, exit, states, logs, deployment: () => d };
}

describe('crash watch: a release that crashes after going live', () => {
  it('within a minute: the deployment moves live → crashed with the reason, its log gets the last lines; the app is crashed', async () => {
    const t = setup();
    await t.watch.containerExited({ name: 'n1', grpcAddress: '' }, t.exit(6_200));
    expect(t.deployment()).toMatchObject({ status: 'crashed', failureReason: 'The container exited on its own with code 5 6 s after going live' });
    expect(t.logs.map((l) => [l.seq, l.text])).toEqual([
      [8, 'Crashed: The container exited on its own with code 5 6 s after going live'],
      [9, 'Last log lines:'],
      [10, 'starting'],
      [11, 'exiting after 6000 ms on purpose'],
    ]);
    expect(t.states).toEqual([expect.objectContaining({ status: 'crashed', statusDetail: expect.objectContaining({ exitCode: 5, restarts: 0 }) })]);

    // The restart crashes again: the app counts it, the deployment is reported once.
    await t.watch.containerExited({ name: 'n1', grpcAddress: '' }, t.exit(8_000));
    expect(t.logs).toHaveLength(4);
    expect(t.deployment().status).toBe('crashed');
  });

  it('a stop or kill from outside (docker kill, the Docker engine stopping): the app is crashed, the release stays live', async () => {
    const t = setup();
    const killed: ContainerExitEvent = { ...t.exit(1_000, 137), cause: 'external', signal: 9, reason: "The container was killed behind the platform's back" };
    await t.watch.containerExited({ name: 'n1', grpcAddress: '' }, killed);
    expect(t.deployment().status).toBe('live');
    expect(t.logs).toEqual([]);
    expect(t.states).toEqual([expect.objectContaining({ status: 'crashed', statusDetail: expect.objectContaining({ exitCode: 137 }) })]);
    // An OOM kill is the release's own doing: reported on it.
    await t.watch.containerExited({ name: 'n1', grpcAddress: '' }, { ...t.exit(2_000, 137), cause: 'external', oomKilled: true, signal: 9 });
    expect(t.deployment().status).toBe('crashed');
  });

  it('after the window: the app is crashed, the release stays live', async () => {
    const t = setup();
    await t.watch.containerExited({ name: 'n1', grpcAddress: '' }, t.exit(61_000));
    expect(t.deployment().status).toBe('live');
    expect(t.states).toEqual([expect.objectContaining({ status: 'crashed' })]);
  });

  it('a stop by the platform (SIGTERM/SIGKILL) is no crash', async () => {
    const t = setup();
    await t.watch.containerExited({ name: 'n1', grpcAddress: '' }, t.exit(2_000, 143));
    expect(t.deployment().status).toBe('live');
    expect(t.states).toEqual([]);
  });

  it('a release dying inside its settle window, the rollout job gone already: left to the window and the comparison', async () => {
    // No lock is held (the job let go of the app once the route switched); the agent marks the exit `settling`. The
    // comparison that follows the event reverts with the window's reason; a crash recorded here would say "after going
    // live" instead, and move the deployment first (releases.int, decision 0038).
    const t = setup();
    await t.watch.containerExited({ name: 'n1', grpcAddress: '' }, { ...t.exit(1_000), cause: 'external', signal: 0, settling: true });
    expect(t.deployment()).toMatchObject({ status: 'live', failureReason: null });
    expect(t.states).toEqual([]);
    expect(t.logs).toEqual([]);
  });
});
