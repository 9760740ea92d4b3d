import type { AgentTarget, FileDownload, FileEntry, FileRef, FilesGateway, FolderListing } from '@slipway/core';
import type { AgentPool } from './client';
import type { FilesClient } from './generated/slipway/agent/v1/Files';
import type { ListFilesResponse__Output } from './generated/slipway/agent/v1/ListFilesResponse';
import type { WriteFileResponse__Output } from './generated/slipway/agent/v1/WriteFileResponse';
import { loadFilesProto } from './load';
import { streamDownload } from './stream-download';
import { streamUpload } from './stream-upload';
import { label, unary } from './unary';

export type { FilesClient };

/**
 * The `slipway.agent.v1.Files` service of each server, over the channel of the pool's connection to it (one
 * HTTP/2 connection per server, mutual TLS); implements the FilesGateway port of @slipway/core.
 */
export class FilesPool implements FilesGateway {
  constructor(private readonly agents: AgentPool) {}

  client(target: AgentTarget): FilesClient {
    const { Files } = loadFilesProto().slipway.agent.v1;
    return this.agents.connection(target).service('files', (address, credentials, options) => new Files(address, credentials, options));
  }

  async listFiles(target: AgentTarget, ref: FileRef & { limit: number }): Promise<FolderListing> {
    const res = await unary<ListFilesResponse__Output>(target, (cb, o) => this.client(target).listFiles(ref, o, cb));
    return {
      path: res.path,
      truncated: res.truncated,
      entries: res.entries.map(
        (e): FileEntry => ({ name: e.name, type: e.type as FileEntry['type'], size: Number(e.size), modifiedAt: new Date(e.modifiedAtMs), mode: e.mode }),
      ),
    };
  }

  async readFile(target: AgentTarget, ref: FileRef): Promise<FileDownload> {
    const { info, size, stream } = await streamDownload(this.client(target).readFile(ref), target, (i) => Number(i.size), {
      header: 'file',
      grew: 'The file grew while it was read',
      short: 'The file shrank while it was read',
    });
    return { name: info.name, size, stream };
  }

  writeFile(target: AgentTarget, ref: FileRef, body: AsyncIterable<Uint8Array>): Promise<{ size: number }> {
    return streamUpload(
      (cb) => this.client(target).writeFile(cb),
      { appId: ref.appId, path: ref.path },
      body,
      (res: WriteFileResponse__Output) => ({ size: Number(res.size) }),
      label(target),
    );
  }

  async renameFile(target: AgentTarget, input: { appId: string; from: string; to: string }): Promise<void> {
    await unary(target, (cb, o) => this.client(target).renameFile(input, o, cb));
  }

  async deleteFile(target: AgentTarget, ref: FileRef & { recursive: boolean }): Promise<void> {
    await unary(target, (cb, o) => this.client(target).deleteFile(ref, o, cb));
  }

  close(): void {
    // The clients ride on the agent pool's connections, which close them.
  }
}
