import { Readable } from 'node:stream';
import { grantAccess, type WorkspaceRecord } from '../auth/actor';
import { AppError } from '../errors';
import type { NodeRecord } from '../nodes/node.ports';
import { FilesService, limitBytes } from './files.service';
import type { FilesGateway } from './files.ports';

const APP = '01936f3e-8a2b-7c4d-9e0f-123456789abc';
const workspace = { id: 'ws-1', nodeId: 'node-1' } as WorkspaceRecord;
const access = grantAccess({ kind: 'session', userId: 'u', sessionId: 's' }, 'developer', workspace);
const node = { id: 'node-1', name: 'n1', grpcAddress: '127.0.0.1:7443' } as NodeRecord;

function setup(apps: Record<string, string> = { [APP]: 'ws-1' }) {
  const calls: { op: string; target: unknown; input: unknown }[] = [];
  const gateway: FilesGateway = {
    listFiles: async (target, input) => {
      calls.push({ op: 'list', target, input });
      return { path: input.path, truncated: false, entries: [{ name: 'a', type: 'file', size: 1, modifiedAt: new Date(0), mode: '0644' }] };
    },
    readFile: async (target, input) => {
      calls.push({ op: 'read', target, input });
      return { name: 'a', size: 1, stream: Readable.from([Buffer.from('x')]) };
    },
    writeFile: async (target, input, body) => {
      let size = 0;
      for await (const c of body) size += c.length;
      calls.push({ op: 'write', target, input: { ...input, size } });
      return { size };
    },
    renameFile: async (target, input) => void calls.push({ op: 'rename', target, input }),
    deleteFile: async (target, input) => void calls.push({ op: 'delete', target, input }),
  };
  const service = new FilesService({
    apps: { findApp: async ({ workspaceId, appId }) => (apps[appId.toLowerCase()] === workspaceId ? { id: appId.toLowerCase() } : null) },
    nodes: { get: async (id) => (id === node.id ? node : null) },
    files: gateway,
    maxUploadBytes: 10,
  });
  return { service, calls };
}

const code = (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (e instanceof AppError ? e.code : 'other'));

async function* body(...parts: string[]) {
  for (const p of parts) yield Buffer.from(p);
}

describe('FilesService', () => {
  it("calls the agent of the workspace's node with the app's canonical id and the normalized path", async () => {
    const { service, calls } = setup();
    const listing = await service.list(access, APP.toUpperCase(), 'src/app');
    expect(listing).toEqual({ path: 'src/app', truncated: false, entries: [{ name: 'a', type: 'file', size: 1, modifiedAt: '1970-01-01T00:00:00.000Z', mode: '0644' }] });
    expect(calls[0]).toEqual({ op: 'list', target: { name: 'n1', grpcAddress: '127.0.0.1:7443' }, input: { appId: APP, path: 'src/app', limit: 1000 } });
  });

  it('lists the root by default', async () => {
    const { service, calls } = setup();
    await service.list(access, APP);
    expect(calls[0]!.input).toEqual({ appId: APP, path: '', limit: 1000 });
  });

  it('refuses bad paths before calling the agent', async () => {
    const { service, calls } = setup();
    expect(await code(service.list(access, APP, '../x'))).toBe('invalid_path');
    expect(await code(service.download(access, APP, ''))).toBe('invalid_path');
    expect(await code(service.upload(access, APP, 'a/', body('x')))).toBe('invalid_path');
    expect(await code(service.rename(access, APP, { from: 'a', to: '/etc/passwd' }))).toBe('invalid_path');
    expect(await code(service.delete(access, APP, '', true))).toBe('invalid_path');
    expect(calls).toEqual([]);
  });

  it("answers 404 for an app of another workspace or a missing one", async () => {
    const { service, calls } = setup({ [APP]: 'ws-2' });
    expect(await code(service.list(access, APP))).toBe('not_found');
    expect(await code(service.download(access, APP, 'a'))).toBe('not_found');
    expect(calls).toEqual([]);
  });

  it('answers 503 when the workspace has no known server', async () => {
    const { service } = setup();
    const orphan = grantAccess(access.actor, 'owner', { ...workspace, nodeId: null });
    expect(await code(service.list(orphan, APP))).toBe('node_unavailable');
  });

  it('refuses an upload over the limit: at once when declared, else as soon as it is passed', async () => {
    const { service, calls } = setup();
    expect(await code(service.upload(access, APP, 'a', body('x'), 11))).toBe('payload_too_large');
    expect(await code(service.upload(access, APP, 'a', body('12345', '678901')))).toBe('payload_too_large');
    expect(await service.upload(access, APP, 'a', body('12345', '67890'))).toEqual({ ok: true });
    expect(calls.map((c) => c.input)).toEqual([{ appId: APP, path: 'a', size: 10 }]);
  });

  it('limitBytes stops reading at the first byte past the limit', async () => {
    let pulled = 0;
    async function* source() {
      for (let i = 0; i < 100; i++) {
        pulled++;
        yield Buffer.alloc(4);
      }
    }
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const c of limitBytes(source(), 10)) seen.push(c.length);
      })(),
    ).rejects.toThrow(AppError);
    expect(seen).toEqual([4, 4]);
    expect(pulled).toBe(3);
  });

  it('passes rename and delete through', async () => {
    const { service, calls } = setup();
    expect(await service.rename(access, APP, { from: 'a', to: 'b/c' })).toEqual({ ok: true });
    expect(await service.delete(access, APP, 'b', true)).toEqual({ ok: true });
    expect(calls.map((c) => [c.op, c.input])).toEqual([
      ['rename', { appId: APP, from: 'a', to: 'b/c' }],
      ['delete', { appId: APP, path: 'b', recursive: true }],
    ]);
  });
});
