// The agent's storage layer: one project folder per app, `<data dir>/volumes/<appId>`, with a hard size that the
// kernel enforces (a write past it fails with ENOSPC inside that app alone). Why loop-mounted ext4 images and not one
// file system with quotas: docs/decisions/0009-project-folders-on-loop-ext4-images.md.

/** An app id as the control plane makes them: a canonical lower-case UUID (so never `.meta`, `..` or a path). */
export const APP_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Smallest and largest folder the layer makes (the plans' minimum is 512 MB; ext4 needs a few MB of its own). */
export const MIN_LIMIT_MB = 16;
export const MAX_LIMIT_MB = 16 * 1024 * 1024;

export interface FolderUsage {
  /** The size asked for: what the app can write, within a fraction of a percent. */
  limitMb: number;
  /** What the app's files take (rounded up). */
  usedMb: number;
}

export interface ServerDisk {
  /** The file system that holds the data directory (images, uploads, builds' context). */
  totalMb: number;
  /** What unprivileged writers can still use there. */
  freeMb: number;
  /** Sum of the folders' limits: what they may still take of freeMb at most is allocatedMb − their usedMb. */
  allocatedMb: number;
  folders: number;
}

export interface ProjectStorage {
  /** Makes what is missing and mounts every folder that is not: idempotent, run at every agent start. */
  start(): Promise<void>;
  /** Resolves once the app's folder, when this server has one, is mounted (mounted now if the start has not come to it). */
  ready(appId: string): Promise<void>;
  /** The folder of `appId` with `limitMb`, made empty when missing; an existing one is grown to `limitMb`. */
  create(appId: string, limitMb: number): Promise<FolderUsage>;
  /** A larger size for an existing folder, its data kept, the app running. Shrinking is refused. */
  resize(appId: string, limitMb: number): Promise<FolderUsage>;
  /** null when the app has no folder here. */
  usage(appId: string): Promise<FolderUsage | null>;
  /** Every folder's usage, by app id. */
  usageAll(): Promise<Map<string, FolderUsage>>;
  /** The folder and everything in it, gone; the space back to the server. Idempotent. */
  remove(appId: string): Promise<void>;
  serverDisk(): Promise<ServerDisk>;
  /** The disk's size and free room alone (one statfs): what a deployment's check needs, at any number of folders. */
  serverFree(): Promise<Pick<ServerDisk, 'totalMb' | 'freeMb'>>;
}
