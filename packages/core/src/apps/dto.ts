import type { App, Deployment } from '@slipway/contracts';
import type { AppWithDeployment, DeploymentRecord } from './app.ports';

export interface AppsDomain {
  /** config.apps.domain, e.g. apps.example.com */
  domain: string;
  scheme: 'http' | 'https';
}

export const appHost = (subdomain: string, apps: AppsDomain): string => `${subdomain}.${apps.domain}`;

export function toDeployment(d: DeploymentRecord): Deployment {
  return {
    id: d.id,
    appId: d.appId,
    number: d.number,
    source: d.source,
    status: d.status,
    image: d.image,
    imageDigest: d.imageId,
    rollbackOf: d.rollbackOfId,
    commit: d.commit ? { ...d.commit } : d.commitSha ? { sha: d.commitSha } : null,
    failureReason: d.failureReason,
    imageAvailable: d.imageAvailable && d.imageId !== null,
    triggeredBy: d.triggeredBy,
    createdAt: d.createdAt.toISOString(),
    startedAt: d.startedAt?.toISOString() ?? null,
    finishedAt: d.finishedAt?.toISOString() ?? null,
  };
}

/** `usedMb`: what the app's files take in its project folder, as its server says; null when it could not be asked. */
export function toApp(a: AppWithDeployment, apps: AppsDomain, usedMb: number | null = null): App {
  return {
    id: a.id,
    workspaceId: a.workspaceId,
    name: a.name,
    slug: a.slug,
    kind: a.kind,
    source: a.source,
    image: a.image,
    port: a.port,
    cpuMillis: a.cpuMillis,
    memoryMb: a.memoryMb,
    disk: { limitMb: a.diskMb, usedMb },
    url: a.subdomain ? `${apps.scheme}://${appHost(a.subdomain, apps)}` : null,
    subdomain: a.subdomain,
    github: a.github as App['github'],
    buildCommand: a.buildCommand,
    startCommand: a.startCommand,
    rootDirectory: a.rootDirectory,
    desiredState: a.desiredState,
    generation: a.generation,
    status: a.status,
    statusDetail: a.statusDetail,
    currentDeployment: a.currentDeployment ? toDeployment(a.currentDeployment) : null,
    runningSince: a.runningSince?.toISOString() ?? null,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}
