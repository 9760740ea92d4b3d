// What the convergence tests observe of an app: its JSON, its containers on the engine, its route in Caddy, and
// whether the platform is quiet (no operation or deployment of the app still to run).
import { LABELS } from '@slipway/core';
import type { ApiClient } from './api-client';
import type { TestPlatform } from './platform';
import { waitFor } from './worker';

export interface AppView {
  id: string;
  url: string;
  desiredState: 'running' | 'stopped';
  status: string;
  generation: number;
  currentDeployment: { id: string; status: string } | null;
}

export interface Observed {
  app: AppView;
  /** The app's containers: id, deployment label, engine state. */
  containers: { id: string; deploymentId: string; state: string }[];
  routed: boolean;
}

export async function observe(p: TestPlatform, client: ApiClient, wsId: string, appId: string): Promise<Observed> {
  // The machine's Caddy is shared with other suites (some restart it): a dropped connection is tried again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await observeOnce(p, client, wsId, appId);
    } catch (e) {
      if (attempt >= 3) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

async function observeOnce(p: TestPlatform, client: ApiClient, wsId: string, appId: string): Promise<Observed> {
  const app = (await client.get(`/v1/workspaces/${wsId}/apps/${appId}`)).body as AppView;
  const list = await p.docker.listContainers({ all: true, filters: { label: [`${LABELS.app}=${appId}`] } });
  const containers = list
    .filter((c) => c.Names.some((n) => n.startsWith('/slipway-app-')))
    .map((c) => ({ id: c.Id, deploymentId: c.Labels[LABELS.deployment] ?? '', state: c.State }));
  return { app, containers, routed: await p.routed(appId) };
}

/** The settle window of the test platforms (SLIPWAY_READY_SETTLE_MS's default): the previous release stays warm that long. */
const SETTLE_MS = 3_000;

/**
 * No operation and no deployment of the app left to run, twice in a row 300 ms apart, and the container a rollout
 * replaced had the settle window (kept warm behind the new one, decision 0038) and `retireMs` (its stop grace period
 * and removal) since the last deployment finished.
 */
export async function quiet(p: TestPlatform, appId: string, o: { retireMs?: number; ms?: number } = {}): Promise<void> {
  const retireMs = SETTLE_MS + (o.retireMs ?? 4_000);
  const busy = async () => {
    const ops = await p.db.operation.count({ where: { status: { in: ['queued', 'running'] }, payload: { path: ['appId'], equals: appId } } });
    const deployments = await p.db.deployment.count({ where: { appId, status: { in: ['queued', 'building', 'deploying'] } } });
    const last = await p.db.deployment.findFirst({ where: { appId, finishedAt: { not: null } }, orderBy: { finishedAt: 'desc' }, select: { finishedAt: true } });
    const retiring = last?.finishedAt && Date.now() - last.finishedAt.getTime() < retireMs ? 1 : 0;
    return ops + deployments + retiring;
  };
  await waitFor(
    async () => {
      if (await busy()) return false;
      await new Promise((r) => setTimeout(r, 300));
      return (await busy()) === 0;
    },
    o.ms ?? 90_000,
    `app ${appId} to be quiet`,
  );
}

/**
 * The app agrees with its desired state: running → status running, exactly one running container (the current
 * deployment's), a route; stopped → status stopped, no running container, no route. At most one container runs.
 * Answers what disagrees (empty when everything agrees).
 */
export function disagreements(o: Observed, expected: 'running' | 'stopped'): string[] {
  const problems: string[] = [];
  const running = o.containers.filter((c) => c.state === 'running' || c.state === 'restarting');
  if (o.app.desiredState !== expected) problems.push(`desiredState ${o.app.desiredState}, expected ${expected}`);
  if (running.length > 1) problems.push(`${running.length} containers run`);
  if (expected === 'running') {
    if (o.app.status !== 'running') problems.push(`status ${o.app.status} while meant to run`);
    if (running.length !== 1 || running[0]!.deploymentId !== o.app.currentDeployment?.id) problems.push(`the current deployment's container does not run (${JSON.stringify(o.containers)})`);
    if (!o.routed) problems.push('no route');
  } else {
    if (o.app.status !== 'stopped') problems.push(`status ${o.app.status} while stopped`);
    if (running.length) problems.push(`a container runs while stopped (${JSON.stringify(o.containers)})`);
    if (o.routed) problems.push('a route while stopped');
  }
  return problems;
}
