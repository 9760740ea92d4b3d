import type { Readable } from 'node:stream';
import type { AgentTarget } from '../ports/agents';

/** One entry of a folder listing, as the agent reports it (lstat: a symlink is reported, never followed). */
export interface FileEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  modifiedAt: Date;
  /** Octal permission bits, e.g. `0644`. */
  mode: string;
}

export interface FolderListing {
  /** The path as asked (segments joined by `/`; empty for the project folder). */
  path: string;
  entries: FileEntry[];
  truncated: boolean;
}

/** A file being downloaded: `stream` carries exactly `size` bytes, or fails. Destroying it cancels the transfer. */
export interface FileDownload {
  name: string;
  size: number;
  stream: Readable;
}

/** Every call names the app, whose project folder is `<agent data dir>/volumes/<appId>` on the agent's server. */
export interface FileRef {
  appId: string;
  path: string;
}

/**
 * The project-folder operations of an agent (the `slipway.agent.v1.Files` gRPC service). The agent resolves the
 * path inside the folder and refuses whatever leaves it; failures arrive as AppErrors (`invalid_path`, `not_found`,
 * `not_a_file`, `not_a_folder`, `destination_exists`, `folder_not_empty`, `payload_too_large`, `node_unavailable`).
 */
export interface FilesGateway {
  listFiles(target: AgentTarget, ref: FileRef & { limit: number }): Promise<FolderListing>;
  /** Resolves once the agent has opened the file (so a missing file fails before any byte is sent). */
  readFile(target: AgentTarget, ref: FileRef): Promise<FileDownload>;
  /**
   * Streams `body` to the agent with backpressure. The agent writes a temporary file beside the target and renames
   * it over the target only after the last chunk; when `body` throws (client gone, limit passed) the transfer is
   * cancelled and the agent removes its temporary file.
   */
  writeFile(target: AgentTarget, ref: FileRef, body: AsyncIterable<Uint8Array>): Promise<{ size: number }>;
  renameFile(target: AgentTarget, input: { appId: string; from: string; to: string }): Promise<void>;
  deleteFile(target: AgentTarget, ref: FileRef & { recursive: boolean }): Promise<void>;
}

/** What the files service needs to know of the app: that it exists, in that workspace, and is not deleted. */
export interface FilesAppLookup {
  findApp(input: { workspaceId: string; appId: string }): Promise<{ id: string } | null>;
}
