import type { AppService, DeploymentService, DomainService } from '@slipway/core';
import type { Response } from 'express';
import type { HandlerTable } from '../http/operations';

function closedSignal(res: Response): AbortSignal {
  const ac = new AbortController();
  // 'close' on the response: sent, or the connection dropped before (the listener goes with the response).
  res.once('close', () => ac.abort());
  return ac.signal;
}

export function appRoutes(s: { apps: AppService; deployments: DeploymentService; domains?: DomainService }): HandlerTable {
  return {
    listApps: async ({ access }) => ({ data: await s.apps.list(access) }),
    createApp: ({ access, body }) => s.apps.create(access, body),
    getApp: ({ access, params }) => s.apps.get(access, params.appId),
    updateApp: ({ access, params, body }) => s.apps.update(access, params.appId, body),
    deleteApp: async ({ access, params }) => {
      await s.apps.remove(access, params.appId);
      // Its custom domains go with it: rows now, routes and TLS policies from the server at once (or at the next sweep).
      await s.domains?.removeAppDomains(access, params.appId);
      return { ok: true };
    },
    getAppEnv: async ({ access, params }) => ({ data: await s.apps.getEnv(access, params.appId) }),
    putAppEnv: async ({ access, params, body }) => ({ data: await s.apps.putEnv(access, params.appId, body) }),
    startApp: ({ access, params }) => s.apps.start(access, params.appId),
    stopApp: ({ access, params }) => s.apps.stop(access, params.appId),
    restartApp: ({ access, params }) => s.apps.restart(access, params.appId),
    getAppLogs: ({ access, params, query }) => s.apps.logs(access, params.appId, { after: query.after ?? 0, limit: query.limit ?? 500 }),
    listAppEvents: ({ access, params }) => s.apps.events(access, params.appId),

    listDeployments: ({ access, params, query }) => s.deployments.list(access, params.appId, { cursor: query.cursor, limit: query.limit ?? 25 }),
    createDeployment: ({ access, params, body }) => s.deployments.create(access, params.appId, body ?? {}),
    uploadDeployment: ({ access, params, req }) => {
      const length = req.headers['content-length'];
      // destroyOnReturn false: when the upload fails early the request stays open for the error answer.
      const body = req.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array>;
      return s.deployments.upload(access, params.appId, body, length !== undefined ? Number(length) : undefined);
    },
    getDeployment: ({ access, params }) => s.deployments.get(access, params.appId, params.deploymentId),
    getDeploymentLogs: ({ access, params, query, res }) =>
      s.deployments.follow(access, params.appId, params.deploymentId, { after: query.after ?? 0, limit: query.limit ?? 500 }, {
        waitMs: (query.wait ?? 0) * 1000,
        // A client that went away stops the wait.
        signal: closedSignal(res),
      }),
    rollbackDeployment: ({ access, params }) => s.deployments.rollback(access, params.appId, params.deploymentId),
    cancelDeployment: ({ access, params }) => s.deployments.cancel(access, params.appId, params.deploymentId),
  };
}
