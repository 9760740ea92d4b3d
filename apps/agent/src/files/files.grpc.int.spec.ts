// The Files service over real gRPC with mutual TLS, through the control plane's client (FilesPool): streaming both
// ways, errors arriving as AppErrors, and an upload cancelled halfway leaving the old file.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@slipway/core';
import type { CertificateAuthority } from '@slipway/pki';
import { AgentPool, FilesPool } from '@slipway/proto';
import { openTestCa, startTestAgent, type TestAgent } from '@slipway/testing/agent';

jest.setTimeout(60_000);

/**
 * Waits (up to 15 s) until no upload's part has been under `dir` for 1 s. The agent learns of a cancel asynchronously:
 * on a busy machine its handler may not even have made the part when the caller's upload failed, so "none yet" right
 * after the failure proves nothing (CI saw the part appear after such a check).
 */
async function uploadsGone(dir: string): Promise<void> {
  const hasPart = async () => (await readdir(dir)).some((n) => n.includes('slipway-upload'));
  let quietSince = Date.now();
  for (const end = Date.now() + 15_000; Date.now() < end && Date.now() - quietSince < 1_000; await new Promise((r) => setTimeout(r, 20))) {
    if (await hasPart()) quietSince = Date.now();
  }
}

describe('Files service over gRPC (mutual TLS on 127.0.0.1)', () => {
  let ca: CertificateAuthority;
  let caDir: string;
  let t: TestAgent;
  let agents: AgentPool;
  let files: FilesPool;
  const appId = randomUUID();
  let root: string;

  beforeAll(async () => {
    ({ ca, dir: caDir } = await openTestCa());
    t = await startTestAgent(ca, { nodeName: 'files-spec' });
    agents = new AgentPool(ca.client);
    files = new FilesPool(agents);
    root = path.join(t.dataDir, 'volumes', appId);
    await mkdir(root, { recursive: true });
    await writeFile(path.join(root, 'keep.txt'), 'old content');
    await symlink('/etc', path.join(root, 'etc'));
  });

  afterAll(async () => {
    files.close();
    agents.close();
    await t.stop();
    await rm(caDir, { recursive: true, force: true });
  });

  const codeOf = (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (e instanceof AppError ? e.code : String(e)));

  async function* chunksOf(buf: Buffer, size = 64 * 1024, failAfter?: number): AsyncGenerator<Uint8Array> {
    for (let off = 0; off < buf.length; off += size) {
      if (failAfter !== undefined && off >= failAfter) throw new Error('client went away');
      yield buf.subarray(off, off + size);
    }
  }

  it('writes and reads back 20 MB, streamed both ways', async () => {
    const data = randomBytes(20 * 1024 * 1024);
    expect(await files.writeFile(t.target, { appId, path: 'big/blob.bin' }, chunksOf(data))).toEqual({ size: data.length });
    const download = await files.readFile(t.target, { appId, path: 'big/blob.bin' });
    expect(download).toEqual(expect.objectContaining({ name: 'blob.bin', size: data.length }));
    const hash = createHash('sha256');
    for await (const c of download.stream) hash.update(c as Buffer);
    expect(hash.digest('hex')).toBe(createHash('sha256').update(data).digest('hex'));
  });

  it('reads an empty file', async () => {
    await files.writeFile(t.target, { appId, path: 'empty' }, chunksOf(Buffer.alloc(0)));
    const download = await files.readFile(t.target, { appId, path: 'empty' });
    expect(download.size).toBe(0);
    const parts: unknown[] = [];
    for await (const c of download.stream) parts.push(c);
    expect(parts).toEqual([]);
  });

  it('an upload whose body fails halfway is cancelled: the old file stays, no temporary file is left', async () => {
    const data = randomBytes(8 * 1024 * 1024);
    expect(await codeOf(files.writeFile(t.target, { appId, path: 'keep.txt' }, chunksOf(data, 64 * 1024, 4 * 1024 * 1024)))).toBe('Error: client went away');
    // The agent learns of the cancel asynchronously.
    await uploadsGone(root);
    expect(await readFile(path.join(root, 'keep.txt'), 'utf8')).toBe('old content');
    expect((await readdir(root)).filter((n) => n.includes('slipway-upload'))).toEqual([]);
  });

  it('a download stopped early cancels the transfer', async () => {
    const download = await files.readFile(t.target, { appId, path: 'big/blob.bin' });
    for await (const _ of download.stream) break;
    expect(download.stream.destroyed).toBe(true);
  });

  it('lists, renames and deletes', async () => {
    const listing = await files.listFiles(t.target, { appId, path: '', limit: 1000 });
    expect(listing.entries.map((e) => e.name)).toEqual(expect.arrayContaining(['big', 'etc', 'keep.txt']));
    expect(listing.entries.find((e) => e.name === 'keep.txt')).toEqual(expect.objectContaining({ type: 'file', size: 11, mode: '0644' }));
    expect(listing.entries[0]!.modifiedAt).toBeInstanceOf(Date);
    await files.renameFile(t.target, { appId, from: 'empty', to: 'moved/empty' });
    expect(await codeOf(files.renameFile(t.target, { appId, from: 'keep.txt', to: 'moved/empty' }))).toBe('destination_exists');
    expect(await codeOf(files.deleteFile(t.target, { appId, path: 'moved', recursive: false }))).toBe('folder_not_empty');
    await files.deleteFile(t.target, { appId, path: 'moved', recursive: true });
    expect(await codeOf(files.deleteFile(t.target, { appId, path: 'moved', recursive: true }))).toBe('not_found');
  });

  it('errors arrive with their codes and no server path', async () => {
    const errors = await Promise.all([
      files.listFiles(t.target, { appId, path: 'etc', limit: 10 }).catch((e: AppError) => e),
      files.readFile(t.target, { appId, path: 'etc/passwd' }).catch((e: AppError) => e),
      files.readFile(t.target, { appId, path: '../keep.txt' }).catch((e: AppError) => e),
      files.writeFile(t.target, { appId, path: 'etc/x' }, chunksOf(Buffer.from('x'))).catch((e: AppError) => e),
      files.readFile(t.target, { appId, path: 'nope' }).catch((e: AppError) => e),
      files.readFile(t.target, { appId, path: 'big' }).catch((e: AppError) => e),
      files.listFiles(t.target, { appId, path: 'keep.txt', limit: 10 }).catch((e: AppError) => e),
    ]);
    expect(errors.map((e) => (e as AppError).code)).toEqual(['invalid_path', 'invalid_path', 'invalid_path', 'invalid_path', 'not_found', 'not_a_file', 'not_a_folder']);
    for (const e of errors) expect((e as AppError).message).not.toContain(t.dataDir);
  });
});
