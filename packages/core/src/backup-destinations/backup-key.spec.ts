import { randomBytes } from 'node:crypto';
import { SecretBox } from '../auth/secret-box';
import { WorkspaceBackupKeys, type WorkspaceBackupKeyStore } from './backup-key';

/** The store's contract in memory: the first key kept wins. */
function memoryStore(): WorkspaceBackupKeyStore & { rows: Map<string, string> } {
  const rows = new Map<string, string>();
  return {
    rows,
    keep: async (workspaceId, sealed) => {
      if (!rows.has(workspaceId)) rows.set(workspaceId, sealed);
      return rows.get(workspaceId) as string;
    },
  };
}

describe('WorkspaceBackupKeys', () => {
  const secrets = new SecretBox(randomBytes(32));

  it('makes a 32-byte key at first use, keeps it sealed, and answers the same key afterwards', async () => {
    const keys = memoryStore();
    const service = new WorkspaceBackupKeys({ keys, secrets });
    const first = await service.keyOf('w1');
    expect(first).toHaveLength(32);
    expect((await service.keyOf('w1')).equals(first)).toBe(true);
    expect(keys.rows.get('w1')).toMatch(/^v1\./);
    expect(keys.rows.get('w1')).not.toContain(first.toString('base64'));
    expect((await service.keyOf('w2')).equals(first)).toBe(false);
  });

  it('agrees on one key when two first uses race', async () => {
    const service = new WorkspaceBackupKeys({ keys: memoryStore(), secrets });
    const [a, b] = await Promise.all([service.keyOf('w'), service.keyOf('w')]);
    expect(a.equals(b)).toBe(true);
  });
});
