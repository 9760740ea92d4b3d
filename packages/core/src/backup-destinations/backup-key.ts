import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../auth/secret-box';

/** The sealed per-workspace backup key rows (job side: keyed by the workspace a backup job already holds). */
export interface WorkspaceBackupKeyStore {
  /** Inserts `sealed` unless the workspace has a key already; answers the key now stored (the first one wins). */
  keep(workspaceId: string, sealed: string): Promise<string>;
}

/**
 * The key a workspace's off-server backups are encrypted with (docs/decisions/0036): 32 random bytes made at the
 * first use, SecretBox-sealed at rest; two concurrent first uses agree on one key.
 */
export class WorkspaceBackupKeys {
  constructor(private readonly deps: { keys: WorkspaceBackupKeyStore; secrets: SecretBox }) {}

  async keyOf(workspaceId: string): Promise<Buffer> {
    const candidate = randomBytes(32).toString('base64');
    const stored = await this.deps.keys.keep(workspaceId, this.deps.secrets.seal(candidate));
    const key = Buffer.from(this.deps.secrets.open(stored), 'base64');
    if (key.length !== 32) throw new Error(`The backup key of workspace ${workspaceId} is not 32 bytes`);
    return key;
  }
}
