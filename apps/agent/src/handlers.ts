import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { AppError, type DeployResult, type Logger } from '@slipway/core';
import { CONTROL_PLANE_CLIENT_NAME } from '@slipway/pki';
import { toServiceError, type AgentHandlers, type HealthHandlers, type NodeInfo, type UploadChunk } from '@slipway/proto';
import type { AppsRuntime } from './apps.runtime';
import type { CaddyIngress } from './caddy.ingress';
import type { DockerRuntime } from './docker.runtime';
import type { OperationJournal } from './journal';

export interface HandlerDeps {
  journal: OperationJournal;
  docker: DockerRuntime;
  apps: AppsRuntime;
  ingress: CaddyIngress;
  nodeInfo: () => NodeInfo;
  uploadsDir: string;
  maxUploadBytes: number;
  logger: Logger;
}

type AnyCall = { getAuthContext(): { sslPeerCertificate?: { subject?: { CN?: string | string[] } } } };

/**
 * TLS already refused anyone without a certificate from the control plane's CA; this also refuses
 * a certificate of that CA that is not the control plane's (another agent's, say).
 */
function authorize(call: AnyCall): void {
  const cn = call.getAuthContext().sslPeerCertificate?.subject?.CN;
  if (cn !== CONTROL_PLANE_CLIENT_NAME) throw new AppError('forbidden', 'Only the control plane may call this agent');
}

function unary<Req, Res>(logger: Logger, name: string, fn: (req: Req) => Promise<Res>): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    try {
      authorize(call);
    } catch (e) {
      return callback(toServiceError(e));
    }
    fn(call.request).then(
      (res) => callback(null, res),
      (e: unknown) => {
        if (!(e instanceof AppError)) logger.error({ err: e, rpc: name }, 'command failed');
        callback(toServiceError(e));
      },
    );
  };
}

function dockerError(e: unknown): never {
  // The engine being down is the server being unavailable: the caller retries later.
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'EACCES') throw new AppError('node_unavailable', 'The Docker engine is not reachable');
  throw e;
}

export function agentHandlers(deps: HandlerDeps): AgentHandlers {
  const { journal, docker, logger } = deps;
  return {
    GetNodeInfo: unary(logger, 'GetNodeInfo', async () => deps.nodeInfo()),

    Noop: unary(logger, 'Noop', async (req: { operationId: string; delayMs: number }) => {
      const { replayed, entry } = await journal.run(req.operationId, 'Noop', async () => {
        if (req.delayMs > 0) await new Promise((r) => setTimeout(r, Math.min(req.delayMs, 600_000)));
        return {};
      });
      return { operationId: req.operationId, startedAtMs: entry.startedAtMs, finishedAtMs: entry.finishedAtMs ?? 0, replayed };
    }),

    ListManagedContainers: unary(logger, 'ListManagedContainers', async (req: { filter?: { workspaceId: string; appId: string; deploymentId: string; databaseId: string } | null }) => {
      const f = req.filter ?? { workspaceId: '', appId: '', deploymentId: '', databaseId: '' };
      const containers = await docker
        .listManaged({
          workspaceId: f.workspaceId || undefined,
          appId: f.appId || undefined,
          deploymentId: f.deploymentId || undefined,
          databaseId: f.databaseId || undefined,
        })
        .catch(dockerError);
      return { containers };
    }),

    RemoveManagedContainers: unary(logger, 'RemoveManagedContainers', async (req: { operationId: string; containerIds: string[] }) => {
      const { result, replayed } = await journal.run(req.operationId, 'RemoveManagedContainers', () => docker.removeManaged(req.containerIds).catch(dockerError));
      return { ...result, replayed };
    }),

    WatchContainerEvents: (call) => {
      try {
        authorize(call);
      } catch (e) {
        call.emit('error', toServiceError(e));
        return;
      }
      let stop: (() => void) | null = null;
      docker
        .watchExits((e) => call.write(e))
        .then((s) => {
          stop = s;
          if (call.cancelled) s();
        })
        .catch((e: unknown) => call.emit('error', toServiceError(new AppError('node_unavailable', `The Docker engine is not reachable: ${String(e)}`))));
      call.on('cancelled', () => stop?.());
    },

    WatchOperation: (call) => {
      try {
        authorize(call);
      } catch (e) {
        call.emit('error', toServiceError(e));
        return;
      }
      const id = call.request.operationId;
      const send = (e: { state: string; error?: string; startedAtMs?: number; finishedAtMs?: number } | null) =>
        call.write({ operationId: id, state: e?.state ?? 'unknown', message: e?.error ?? '', atMs: e?.finishedAtMs ?? e?.startedAtMs ?? Date.now() });
      const listener = (e: { state: string }) => {
        send(e);
        if (e.state !== 'started') finish();
      };
      const finish = () => {
        journal.events.off(id, listener);
        call.end();
      };
      journal.events.on(id, listener);
      call.on('cancelled', () => journal.events.off(id, listener));
      journal.read(id).then((e) => {
        send(e);
        if (e?.state === 'done' || e?.state === 'failed') finish();
      }, finish);
    },

    TailContainerLogs: (call) => {
      try {
        authorize(call);
      } catch (e) {
        call.emit('error', toServiceError(e));
        return;
      }
      const { containerId, tail, follow } = call.request;
      docker
        .logs(containerId, { tail, follow }, (stream, data) => call.write({ stream, data }))
        .then(({ done, stop }) => {
          call.on('cancelled', stop);
          return done.then(() => call.end());
        })
        .catch((e: { statusCode?: number }) => {
          const err = e.statusCode === 404 ? new AppError('not_found', 'No such managed container') : new AppError('node_unavailable', 'The Docker engine is not reachable');
          call.emit('error', toServiceError(err));
        });
    },

    PrepareImage: (call) =>
      deployStream(call, deps, 'PrepareImage', call.request.operationId, (emit) =>
        deps.apps.prepareImage({ ...call.request, operationId: call.request.operationId }, emit),
      ),

    RolloutApp: (call) =>
      deployStream(call, deps, 'RolloutApp', call.request.operationId, (emit) =>
        deps.apps.rollout(
          {
            ...call.request,
            env: { ...call.request.env },
            pruneImageRefs: [...call.request.pruneImageRefs],
          },
          emit,
        ),
      ),

    AppPower: unary(logger, 'AppPower', async (req: { operationId: string; workspaceId: string; appId: string; action: string; containerId: string; route: { appId: string; host: string; upstreamPort: number } | null; stopGraceMs: number }) => {
      if (!['start', 'stop', 'restart'].includes(req.action)) throw new AppError('validation_failed', 'action must be start, stop or restart');
      const { replayed } = await journal.run(req.operationId, 'AppPower', () =>
        deps.apps.power({ ...req, action: req.action as 'start' | 'stop' | 'restart', route: req.route ?? null }).catch(dockerError),
      );
      return { replayed };
    }),

    RemoveApp: unary(logger, 'RemoveApp', async (req: { operationId: string; workspaceId: string; appId: string }) => {
      const { result, replayed } = await journal.run(req.operationId, 'RemoveApp', () => deps.apps.removeApp(req).catch(dockerError));
      return { ...result, replayed };
    }),

    SyncRoutes: unary(logger, 'SyncRoutes', async (req: { routes: { appId: string; host: string; upstreamPort: number }[] }) =>
      deps.ingress.sync(req.routes.map((r) => ({ appId: r.appId, host: r.host, upstreamPort: r.upstreamPort }))).catch((e: Error) => {
        throw new AppError('node_unavailable', `The ingress is not reachable: ${e.message}`);
      }),
    ),

    Upload: (call, callback) => {
      try {
        authorize(call);
      } catch (e) {
        return callback(toServiceError(e));
      }
      receiveUpload(call, deps).then(
        (res) => callback(null, res),
        (e: unknown) => callback(toServiceError(e)),
      );
    },
  };
}

type DeployCall = grpc.ServerWritableStream<unknown, { line?: string; result?: DeployResult | null }> & AnyCall;

/**
 * A deployment step streamed to the caller: each log line as it happens, then the result. The journal makes the
 * step happen once per operation id; a repeated call after it finished gets the recorded result alone.
 */
function deployStream(call: DeployCall, deps: HandlerDeps, command: string, operationId: string, work: (emit: (line: string) => void) => Promise<DeployResult>): void {
  try {
    authorize(call);
  } catch (e) {
    call.emit('error', toServiceError(e));
    return;
  }
  const emit = (line: string) => {
    if (!call.cancelled && !call.writableEnded) call.write({ line });
  };
  deps.journal.run(operationId, command, () => work(emit).catch(dockerError)).then(
    ({ result }) => {
      call.write({ result });
      call.end();
    },
    (e: unknown) => {
      if (!(e instanceof AppError)) deps.logger.error({ err: e, rpc: command }, 'command failed');
      call.emit('error', toServiceError(e));
    },
  );
}

/**
 * Writes the streamed file to `<uploads>/<operation id>`: into a temporary file, checked against the
 * header's size and SHA-256, then renamed. The same operation id again answers from the journal.
 */
async function receiveUpload(call: AsyncIterable<UploadChunk>, deps: HandlerDeps) {
  const chunks = call[Symbol.asyncIterator]();
  const first = await chunks.next();
  const header = first.done ? null : first.value.header;
  if (!header) throw new AppError('validation_failed', 'The first message of an upload must be its header');
  const size = Number(header.size);
  if (size > deps.maxUploadBytes) throw new AppError('payload_too_large', 'The upload is larger than the limit');
  const { result, replayed } = await deps.journal.run(header.operationId, 'Upload', async () => {
    await mkdir(deps.uploadsDir, { recursive: true, mode: 0o700 });
    const target = path.join(deps.uploadsDir, header.operationId);
    const tmp = `${target}.part`;
    const hash = createHash('sha256');
    const out = createWriteStream(tmp, { mode: 0o600 });
    let received = 0;
    try {
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
        const data = next.value.data;
        if (!data) continue;
        received += data.length;
        if (received > size) throw new AppError('validation_failed', 'The upload is longer than its header said');
        hash.update(data);
        if (!out.write(data)) await new Promise<void>((r) => out.once('drain', () => r()));
      }
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
      const sha256 = hash.digest('hex');
      if (received !== size) throw new AppError('validation_failed', `The upload is ${received} bytes, its header said ${size}`);
      if (header.sha256 && header.sha256.toLowerCase() !== sha256) throw new AppError('validation_failed', 'The upload does not match its SHA-256');
      await rename(tmp, target);
      return { size: String(received), sha256 };
    } catch (e) {
      out.destroy();
      await rm(tmp, { force: true });
      throw e;
    }
  });
  if (replayed) for (let next = await chunks.next(); !next.done; next = await chunks.next());
  return { operationId: header.operationId, ...result, replayed };
}

export function healthHandlers(isServing: () => boolean): HealthHandlers {
  const status = () => ({ status: isServing() ? ('SERVING' as const) : ('NOT_SERVING' as const) });
  return {
    Check: (call, callback) => {
      try {
        authorize(call);
      } catch (e) {
        return callback(toServiceError(e));
      }
      callback(null, status());
    },
    Watch: (call) => {
      call.write(status());
    },
  };
}
