import { createHash } from 'node:crypto';
import { access, open, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { AppError, type Logger } from '@slipway/core';
import type { BuildsHandlers, UploadZipChunk } from '@slipway/proto';
import type { OperationJournal } from '../rpc/journal';
import { clientStream, serve, serverStream, unary } from '../rpc/handlers';
import { openUpload, receiveInto } from '../rpc/upload';
import type { Builder } from './builder';
import { BuildError } from './extract';
import { parseSettings } from './settings';

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
  return serve<BuildsHandlers>(deps.logger, {
    // A cancelled call (the HTTP upload aborted, the limit passed upstream) ends without a commit: nothing stays.
    UploadZip: clientStream(async (messages) => {
      const { header, parts } = await openUpload<NonNullable<UploadZipChunk['header']>>(messages, 'an upload');
      const target = uploadPath(deps.uploadsDir, deploymentIdOf(header.deploymentId));
      const part = `${target}.part`;
      await mkdir(deps.uploadsDir, { recursive: true, mode: 0o700 });
      await rm(part, { force: true });
      const file = await open(part, 'wx', 0o600);
      const hash = createHash('sha256');
      try {
        const size = await receiveInto(file, parts, { maxBytes: deps.maxZipBytes, tooLarge: `A .zip upload is limited to ${deps.maxZipBytes} bytes`, hash });
        await file.close();
        await rename(part, target);
        return { size: String(size), sha256: hash.digest('hex') };
      } catch (e) {
        await file.close().catch(() => undefined);
        await rm(part, { force: true });
        throw e;
      }
    }),

    BuildZip: serverStream(async (req, send, signal) => {
      const { operationId, workspaceId, appId } = req;
      const deploymentId = deploymentIdOf(req.deploymentId);
      const zipPath = uploadPath(deps.uploadsDir, deploymentId);
      const { result } = await deps.journal.run(operationId, 'BuildZip', async () => {
        await access(zipPath).catch(() => {
          throw new BuildError('The uploaded .zip is no longer on the server: upload it again');
        });
        try {
          const settings = parseSettings(req);
          const built = await deps.builder.build({ workspaceId, appId, deploymentId, zipPath, settings, signal }, (line) => void send({ line }));
          await rm(zipPath, { force: true });
          return built;
        } catch (e) {
          // A build that cannot succeed needs its .zip no more; anything else (Docker down) may be retried with it.
          if (e instanceof BuildError) await rm(zipPath, { force: true });
          throw e;
        }
      });
      await send({ result });
    }),

    DiscardUpload: unary(async (req) => {
      const target = uploadPath(deps.uploadsDir, deploymentIdOf(req.deploymentId));
      const existed = await rm(target).then(
        () => true,
        () => false,
      );
      await rm(`${target}.part`, { force: true });
      return { removed: existed };
    }),
  });
}
