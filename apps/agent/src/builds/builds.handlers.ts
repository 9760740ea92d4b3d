import { createHash } from 'node:crypto';
import { access, open, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { AppError, type Logger } from '@slipway/core';
import type { BuildsHandlers, UploadZipChunk } from '@slipway/proto';
import type { OperationJournal } from '../rpc/journal';
import { clientStream, serve, serverStream, unary } from '../rpc/handlers';
import { openUpload, receiveInto } from '../rpc/upload';
import type { DiskGuard } from '../storage/disk-guard';
import type { Builder } from './builder';
import { BuildError } from './extract';
import { downloadTarball } from './github-fetch';
import { parseSettings, parseVariables } from './settings';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface BuildsDeps {
  builder: Builder;
  journal: OperationJournal;
  /** The server's free-disk reserve: uploads and builds are refused below it. */
  disk: DiskGuard;
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
      await deps.disk.assertRoom('an upload');
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
      const lines = new LineBatcher((text) => send({ line: text }));
      const { result } = await deps.journal
        // `previous`: how the try before this one ended (read when this try starts, after any try it waited for).
        .run(operationId, 'BuildZip', async (_entry, previous) => {
        await deps.disk.assertRoom('a build');
        await access(zipPath).catch(() => {
          // A try that failed for good removed the .zip: a retry of the same operation (its caller lost the answer)
          // says why that try failed, not that the file is gone.
          if (previous?.state === 'failed' && previous.error) throw new BuildError(previous.error);
          throw new BuildError('The uploaded .zip is no longer on the server: upload it again');
        });
        try {
          const settings = parseSettings(req);
          const variables = parseVariables(req.variables);
          const built = await deps.builder.build({ workspaceId, appId, deploymentId, zipPath, settings, variables, signal }, (line) => lines.push(line));
          await rm(zipPath, { force: true });
          return built;
        } catch (e) {
          // A build that cannot succeed needs its .zip no more; anything else (Docker down) may be retried with it.
          if (e instanceof BuildError) await rm(zipPath, { force: true });
          throw e;
        }
      })
        // The last lines (up to 50 ms of them) reach the caller before the result, or before the error.
        .finally(() => lines.end());
      await send({ result });
    }),

    // A GitHub commit (issue 16): the tarball is downloaded next to the uploads with the request's token (held in
    // memory only: the journal records the operation id and result, never the request), built, then removed.
    BuildGithub: serverStream(async (req, send, signal) => {
      const { operationId, workspaceId, appId } = req;
      const deploymentId = deploymentIdOf(req.deploymentId);
      const tarPath = path.join(deps.uploadsDir, `${deploymentId}.github.tar.gz`);
      const lines = new LineBatcher((text) => send({ line: text }));
      const { result } = await deps.journal
        .run(operationId, 'BuildGithub', async () => {
          await deps.disk.assertRoom('a build');
          const settings = parseSettings(req);
          const variables = parseVariables(req.variables);
          await mkdir(deps.uploadsDir, { recursive: true, mode: 0o700 });
          await rm(tarPath, { force: true });
          try {
            const started = Date.now();
            lines.push(`Downloading ${req.repoFullName} at ${req.commitSha.slice(0, 7)} from GitHub`);
            const { bytes } = await downloadTarball({
              apiUrl: req.apiUrl,
              repoFullName: req.repoFullName,
              commitSha: req.commitSha,
              token: req.token,
              dest: tarPath,
              maxBytes: deps.maxZipBytes,
              signal,
            });
            lines.push(`Downloaded ${(bytes / 1024).toFixed(1)} KB in ${Date.now() - started} ms`);
            return await deps.builder.build({ workspaceId, appId, deploymentId, zipPath: tarPath, tarPath, settings, variables, signal }, (line) => lines.push(line));
          } finally {
            await rm(tarPath, { force: true });
          }
        })
        .finally(() => lines.end());
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

/**
 * Build output in few messages: lines joined by \n, sent every 50 ms or at 64 KB. A build printing a million lines
 * was a million gRPC messages (minutes); now it is a few hundred. The client splits them again.
 */
class LineBatcher {
  private pending: string[] = [];
  private size = 0;
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> = Promise.resolve();

  constructor(private readonly send: (text: string) => Promise<void>) {}

  push(line: string): void {
    this.pending.push(line);
    this.size += line.length + 1;
    if (this.size >= 64 * 1024) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), 50);
  }

  /** Sends what is pending; resolves once everything pushed so far was handed to gRPC. */
  end(): Promise<void> {
    this.flush();
    return this.sending;
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.pending.length) return;
    const text = this.pending.join('\n');
    this.pending = [];
    this.size = 0;
    this.sending = this.sending.then(() => this.send(text));
  }
}
