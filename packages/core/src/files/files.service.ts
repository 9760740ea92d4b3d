import type { FileListing, Ok } from '@slipway/contracts';
import type { WorkspaceAccess } from '../auth/actor';
import { AppError } from '../errors';
import type { AgentTarget } from '../ports/agents';
import type { NodeRepository } from '../nodes/node.ports';
import { MAX_LISTING_ENTRIES, parseFilePath } from './file-path';
import type { FileDownload, FilesAppLookup, FilesGateway } from './files.ports';

export interface FilesServiceDeps {
  apps: FilesAppLookup;
  nodes: Pick<NodeRepository, 'get'>;
  files: FilesGateway;
  /** config.limits.uploadFileBytes: a PUT body past this is refused with 413 as soon as it is passed. */
  maxUploadBytes: number;
}

/**
 * The project folder of an app (spec 4.4): every operation runs on the agent of the workspace's server, which
 * resolves the path inside `volumes/<appId>` and refuses whatever leads out of it. This service checks what the
 * control plane knows (the app exists in this workspace, the path is well-formed, the size limit) and streams.
 * Permissions (`files.list`, `files.download`, `files.write`) are checked by the authorization layer before.
 */
export class FilesService {
  constructor(private readonly deps: FilesServiceDeps) {}

  async list(access: WorkspaceAccess, appId: string, path = ''): Promise<FileListing> {
    const segments = parseFilePath(path, { allowRoot: true });
    const { target, app } = await this.targetOf(access, appId);
    const listing = await this.deps.files.listFiles(target, { appId: app, path: segments.join('/'), limit: MAX_LISTING_ENTRIES });
    return {
      path: listing.path,
      truncated: listing.truncated,
      entries: listing.entries.map((e) => ({ name: e.name, type: e.type, size: e.size, modifiedAt: e.modifiedAt.toISOString(), mode: e.mode })),
    };
  }

  /** Resolves once the agent has the file open; the caller streams `stream` (exactly `size` bytes). */
  async download(access: WorkspaceAccess, appId: string, path: string): Promise<FileDownload> {
    const segments = parseFilePath(path, { allowRoot: false });
    const { target, app } = await this.targetOf(access, appId);
    return this.deps.files.readFile(target, { appId: app, path: segments.join('/') });
  }

  /**
   * Streams `body` to the agent, counting bytes as they pass: 413 `payload_too_large` as soon as the limit is
   * passed (or at once when the declared length is over it). The old file stays until the last byte arrived.
   */
  async upload(access: WorkspaceAccess, appId: string, path: string, body: AsyncIterable<Uint8Array>, declaredBytes?: number): Promise<Ok> {
    const segments = parseFilePath(path, { allowRoot: false });
    const { target, app } = await this.targetOf(access, appId);
    const max = this.deps.maxUploadBytes;
    if (declaredBytes !== undefined && declaredBytes > max) throw tooLarge(max);
    await this.deps.files.writeFile(target, { appId: app, path: segments.join('/') }, limitBytes(body, max));
    return { ok: true };
  }

  async rename(access: WorkspaceAccess, appId: string, input: { from: string; to: string }): Promise<Ok> {
    const from = parseFilePath(input.from, { allowRoot: false }).join('/');
    const to = parseFilePath(input.to, { allowRoot: false }).join('/');
    const { target, app } = await this.targetOf(access, appId);
    await this.deps.files.renameFile(target, { appId: app, from, to });
    return { ok: true };
  }

  async delete(access: WorkspaceAccess, appId: string, path: string, recursive: boolean): Promise<Ok> {
    const segments = parseFilePath(path, { allowRoot: false });
    const { target, app } = await this.targetOf(access, appId);
    await this.deps.files.deleteFile(target, { appId: app, path: segments.join('/'), recursive });
    return { ok: true };
  }

  /**
   * The server holding the app (its workspace's node) and the app's id as stored (the folder's name is the
   * canonical id, whatever case the request used). An app of another workspace is 404, like a missing one.
   */
  private async targetOf(access: WorkspaceAccess, appId: string): Promise<{ target: AgentTarget; app: string }> {
    const app = await this.deps.apps.findApp({ workspaceId: access.workspace.id, appId });
    if (!app) throw new AppError('not_found', 'The app was not found');
    const node = access.workspace.nodeId ? await this.deps.nodes.get(access.workspace.nodeId) : null;
    if (!node) throw new AppError('node_unavailable', "The workspace's server is not known");
    return { target: { name: node.name, grpcAddress: node.grpcAddress }, app: app.id.toLowerCase() };
  }
}

const tooLarge = (max: number) => new AppError('payload_too_large', `A file upload is limited to ${max} bytes`);

/** Passes `body` through, failing as soon as more than `max` bytes went by. */
export async function* limitBytes(body: AsyncIterable<Uint8Array>, max: number): AsyncGenerator<Uint8Array> {
  let seen = 0;
  for await (const chunk of body) {
    seen += chunk.length;
    if (seen > max) throw tooLarge(max);
    yield chunk;
  }
}
