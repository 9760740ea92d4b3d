import type * as grpc from '@grpc/grpc-js';
import { AppError, type AgentTarget, type MovesGateway } from '@slipway/core';
import type { AgentPool } from './client';
import { fromServiceError } from './errors';
import type { ImportFolderResponse__Output } from './generated/slipway/agent/v1/ImportFolderResponse';
import type { ImportImagesResponse__Output } from './generated/slipway/agent/v1/ImportImagesResponse';
import type { MoveChunk__Output } from './generated/slipway/agent/v1/MoveChunk';
import type { MovesClient } from './generated/slipway/agent/v1/Moves';
import type { RemoveBackupFoldersResponse__Output } from './generated/slipway/agent/v1/RemoveBackupFoldersResponse';
import { loadMovesProto } from './load';
import { streamUpload } from './stream-upload';
import { label, unary } from './unary';

export type { MovesClient };

/**
 * The `slipway.agent.v1.Moves` service of each server (issue 32), over the pool's connection to it (mutual TLS);
 * implements the MovesGateway port of @slipway/core by writing one server's export into the other's import.
 */
export class MovesPool implements MovesGateway {
  constructor(private readonly agents: AgentPool) {}

  client(target: AgentTarget): MovesClient {
    const { Moves } = loadMovesProto().slipway.agent.v1;
    return this.agents.connection(target).service('moves', (address, credentials, options) => new Moves(address, credentials, options));
  }

  copyImages(from: AgentTarget, to: AgentTarget, input: { operationId: string; workspaceId: string; imageRefs: string[] }): Promise<{ bytes: number; imageRefs: string[] }> {
    const exported = this.client(from).exportImages({ imageRefs: input.imageRefs });
    return streamUpload(
      (cb) => this.client(to).importImages(cb),
      { operationId: input.operationId, workspaceId: input.workspaceId },
      exportedBytes(exported, from),
      (res: ImportImagesResponse__Output) => ({ bytes: Number(res.size), imageRefs: res.imageRefs }),
      label(to),
    );
  }

  copyFolder(
    from: AgentTarget,
    to: AgentTarget,
    input: { operationId: string; workspaceId: string; appId: string; diskMb: number; seededImageRef: string },
  ): Promise<{ bytes: number }> {
    const exported = this.client(from).exportFolder({ appId: input.appId });
    return streamUpload(
      (cb) => this.client(to).importFolder(cb),
      { operationId: input.operationId, workspaceId: input.workspaceId, appId: input.appId, diskMb: input.diskMb, seededImageRef: input.seededImageRef },
      exportedBytes(exported, from),
      (res: ImportFolderResponse__Output) => ({ bytes: Number(res.size) }),
      label(to),
    );
  }

  copyDatabaseFolder(
    from: AgentTarget,
    to: AgentTarget,
    input: { operationId: string; workspaceId: string; databaseId: string; folder: 'data' | 'backups'; live?: boolean; signal?: AbortSignal },
  ): Promise<{ bytes: number; unpacked?: number }> {
    const folder = input.folder === 'data' ? 'DATABASE_DATA' : 'DATABASE_BACKUPS';
    // A database's data and backup files (dumps are written uncompressed) compressed: zstd is far cheaper per byte than
    // the relay it spares (decision 0037).
    const exported = this.client(from).exportFolder({ folder, databaseId: input.databaseId, live: input.live === true, zstd: true });
    return cutOnAbort(exported, input.signal, () =>
      streamUpload(
        (cb) => this.client(to).importFolder(cb),
        { operationId: input.operationId, workspaceId: input.workspaceId, folder, databaseId: input.databaseId },
        exportedBytes(exported, from),
        (res: ImportFolderResponse__Output) => ({ bytes: Number(res.size), unpacked: Number(res.unpackedSize) || undefined }),
        label(to),
      ),
    );
  }

  async dataSignature(on: AgentTarget, input: { databaseId: string; blockBytes: number }): Promise<Uint8Array> {
    const chunks: Uint8Array[] = [];
    for await (const c of exportedBytes(this.client(on).dataSignature({ databaseId: input.databaseId, blockSize: input.blockBytes }), on)) chunks.push(c);
    return Buffer.concat(chunks);
  }

  copyDataDelta(
    from: AgentTarget,
    to: AgentTarget,
    input: { operationId: string; workspaceId: string; databaseId: string; signature: Uint8Array; live: boolean; signal?: AbortSignal },
  ): Promise<{ bytes: number }> {
    const exported = this.client(from).exportDataDelta({ databaseId: input.databaseId, signature: Buffer.from(input.signature), live: input.live, zstd: true });
    return cutOnAbort(exported, input.signal, () =>
      streamUpload(
        (cb) => this.client(to).importFolder(cb),
        { operationId: input.operationId, workspaceId: input.workspaceId, folder: 'DATABASE_DATA_DELTA', databaseId: input.databaseId },
        exportedBytes(exported, from),
        (res: ImportFolderResponse__Output) => ({ bytes: Number(res.size) }),
        label(to),
      ),
    );
  }

  async removeBackupFolders(on: AgentTarget, databaseIds: string[]): Promise<{ removed: number }> {
    const res = await unary<RemoveBackupFoldersResponse__Output>(on, (cb, options) => this.client(on).removeBackupFolders({ databaseIds }, options, cb));
    return { removed: res.removed };
  }
}

/**
 * `copy` with the export cancelled when `signal` aborts (before or during it): the export's reader then fails, so the
 * import is cancelled before its commit and the target keeps nothing of it.
 */
async function cutOnAbort<T>(exported: grpc.ClientReadableStream<MoveChunk__Output>, signal: AbortSignal | undefined, copy: () => Promise<T>): Promise<T> {
  const cut = () => exported.cancel();
  if (signal?.aborted) cut();
  signal?.addEventListener('abort', cut, { once: true });
  try {
    return await copy();
  } finally {
    signal?.removeEventListener('abort', cut);
  }
}

/**
 * The data of an export stream, checked against its `end`: a stream that breaks, or ends without its end or with
 * another byte count, throws (the import is then cancelled before its commit, so the target keeps nothing).
 */
async function* exportedBytes(call: grpc.ClientReadableStream<MoveChunk__Output>, from: AgentTarget): AsyncGenerator<Uint8Array> {
  let sent = 0;
  let ended = false;
  try {
    for await (const m of call as AsyncIterable<MoveChunk__Output>) {
      if (m.part === 'data' && m.data) {
        sent += m.data.length;
        yield m.data;
      } else if (m.part === 'end' && m.end) {
        if (Number(m.end.size) !== sent) throw new AppError('node_unavailable', `The export from ${label(from)} announced ${m.end.size} bytes but sent ${sent}`);
        ended = true;
      }
    }
  } catch (e) {
    throw e instanceof AppError ? e : fromServiceError(e as grpc.ServiceError, label(from));
  } finally {
    if (!ended) call.cancel();
  }
  if (!ended) throw new AppError('node_unavailable', `The export from ${label(from)} ended before it was complete`);
}
