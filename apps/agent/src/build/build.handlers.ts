import { createHash } from 'node:crypto';
import { access, open, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type * as grpc from '@grpc/grpc-js';
import { AppError, type Logger } from '@slipway/core';
import { CONTROL_PLANE_CLIENT_NAME } from '@slipway/pki';
import { toServiceError, type BuildsHandlers, type UploadZipChunk } from '@slipway/proto';
import type { OperationJournal } from '../journal';
import type { Builder } from './builder';
import { BuildError } from './extract';

type AnyCall = { getAuthContext(): { sslPeerCertificate?: { subject?: { CN?: string | string[] } } } };

/** Only the control plane's certificate may call (the same rule as the Agent service, handlers.ts). */
function authorize(call: AnyCall): void {
  const cn = call.getAuthContext().sslPeerCertificate?.subject?.CN;
  if (cn !== CONTROL_PLANE_CLIENT_NAME) throw new AppError('forbidden', 'Only the control plane may call this agent');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface BuildsDeps {
  builder: Builder;
  journal: OperationJournal;
  /** `<dataDir>/uploads`: `<deploymentId>.zip` once an upload is complete. */
  uploadsDir: string;
  /** config.limits.uploadZipBytes: the agent enforces it too, whatever the caller did. */
  maxZipBytes: number;
  logger: Logger;
}

export const uploadPath = (uploadsDir: string, deploymentId: string) => path.join(uploadsDir, `${deploymentId.toLowerCase()}.zip`);

function deploymentIdOf(id: string): string {
  if (!UUID.test(id)) throw new AppError('validation_failed', 'deployment_id must be a UUID');
  return id.toLowerCase();
}

/** The `slipway.agent.v1.Builds` service (build.proto). */
export function buildsHandlers(deps: BuildsDeps): BuildsHandlers {
  const { logger } = deps;
  const wrap = (rpc: string, e: unknown): AppError => {
    if (e instanceof AppError) return e;
    // The Docker engine being down is the server being unavailable: the caller retries later.
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'EACCES') return new AppError('node_unavailable', 'The Docker engine is not reachable');
    logger.error({ err: e, rpc }, 'build call failed');
    return new AppError('internal', 'The build call failed on the server');
  };

  return {
    UploadZip: (call, callback) => {
      // A cancelled call (the HTTP upload aborted, the limit passed upstream) ends without a commit: nothing stays.
      const aborted = new Promise<'aborted'>((r) => call.on('cancelled', () => r('aborted')));
      const chunks = call[Symbol.asyncIterator]() as AsyncIterator<UploadZipChunk>;
      const next = () => Promise.race([chunks.next(), aborted]);
      (async () => {
        authorize(call);
        const first = await next();
        const header = first === 'aborted' || first.done ? null : first.value.header;
        if (!header) throw new AppError('validation_failed', 'The first message of an upload must be its header');
        const target = uploadPath(deps.uploadsDir, deploymentIdOf(header.deploymentId));
        const part = `${target}.part`;
        await mkdir(deps.uploadsDir, { recursive: true, mode: 0o700 });
        await rm(part, { force: true });
        const file = await open(part, 'wx', 0o600);
        const hash = createHash('sha256');
        let size = 0;
        let committed = false;
        try {
          for (;;) {
            const m = await next();
            if (m === 'aborted' || m.done) break;
            if (m.value.part === 'data' && m.value.data) {
              size += m.value.data.length;
              if (size > deps.maxZipBytes) throw new AppError('payload_too_large', `A .zip upload is limited to ${deps.maxZipBytes} bytes`);
              hash.update(m.value.data);
              await file.write(m.value.data);
            } else if (m.value.part === 'commit' && m.value.commit) {
              if (Number(m.value.commit.size) !== size) throw new AppError('validation_failed', `The upload is ${size} bytes, its commit said ${m.value.commit.size}`);
              committed = true;
              break;
            }
          }
          await file.close();
          if (!committed) throw new AppError('validation_failed', 'The upload ended without its commit');
          await rename(part, target);
          return { size: String(size), sha256: hash.digest('hex') };
        } catch (e) {
          await file.close().catch(() => undefined);
          await rm(part, { force: true });
          throw e;
        }
      })().then(
        (res) => callback(null, res),
        (e: unknown) => callback(toServiceError(wrap('UploadZip', e))),
      );
    },

    BuildZip: (call) => {
      const abort = new AbortController();
      call.on('cancelled', () => abort.abort());
      const emit = (line: string) => {
        if (!call.cancelled && !call.writableEnded) call.write({ line });
      };
      (async () => {
        authorize(call);
        const { operationId, workspaceId, appId } = call.request;
        const deploymentId = deploymentIdOf(call.request.deploymentId);
        const zipPath = uploadPath(deps.uploadsDir, deploymentId);
        const { result } = await deps.journal.run(operationId, 'BuildZip', async () => {
          await access(zipPath).catch(() => {
            throw new BuildError('The uploaded .zip is no longer on the server: upload it again');
          });
          try {
            const built = await deps.builder.build({ workspaceId, appId, deploymentId, zipPath, signal: abort.signal }, emit);
            await rm(zipPath, { force: true });
            return built;
          } catch (e) {
            // A build that cannot succeed needs its .zip no more; anything else (Docker down) may be retried with it.
            if (e instanceof BuildError) await rm(zipPath, { force: true });
            throw e;
          }
        });
        return result;
      })().then(
        (result) => {
          if (call.cancelled) return;
          call.write({ result });
          call.end();
        },
        (e: unknown) => {
          if (!call.cancelled) call.emit('error', toServiceError(wrap('BuildZip', e)));
        },
      );
    },

    DiscardUpload: (call: grpc.ServerUnaryCall<{ deploymentId: string }, { removed: boolean }>, callback: grpc.sendUnaryData<{ removed: boolean }>) => {
      (async () => {
        authorize(call);
        const target = uploadPath(deps.uploadsDir, deploymentIdOf(call.request.deploymentId));
        const existed = await rm(target).then(
          () => true,
          () => false,
        );
        await rm(`${target}.part`, { force: true });
        return { removed: existed };
      })().then(
        (res) => callback(null, res),
        (e: unknown) => callback(toServiceError(wrap('DiscardUpload', e))),
      );
    },
  };
}
