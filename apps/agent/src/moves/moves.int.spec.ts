// The Moves service (issue 32) between two real agents over gRPC with mutual TLS, through the control plane's client
// (MovesPool): a project folder copied and caught up (modes and links kept, files of the target kept), a missing folder
// copied as nothing, image tags saved on one agent and loaded by the other, a database's data folder (owners kept, the
// target's earlier copy replaced; pre-copied, then only its changed blocks in a block delta) and backup files (partial
// ones left out) copied and removed, and a target that is down refusing the copy. The two agents share one Docker engine, so a database container moved end to end is the
// fleet spec's (testing/src/fleet/moves.fleet.spec.ts).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { chown, lstat, mkdir, open, readdir, readFile, readlink, rm, stat, symlink, writeFile, chmod } from 'node:fs/promises';
import path from 'node:path';
import Docker from 'dockerode';
import { AppError } from '@slipway/core';
import type { CertificateAuthority } from '@slipway/pki';
import { AgentPool, MovesPool } from '@slipway/proto';
import { TEST_SERVICES } from '@slipway/testing';
import { ensureTestImage, openTestCa, startTestAgent, TEST_IMAGE, type TestAgent } from '@slipway/testing/agent';

jest.setTimeout(120_000);

/** Every entry under `root`: kind, owner, mode, and a file's SHA-256 or a link's target. */
async function treeOf(root: string, rel = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const st = await lstat(path.join(root, rel));
  out[rel || '.'] = `${st.uid}:${st.gid} ${(st.mode & 0o7777).toString(8)}`;
  for (const name of (await readdir(path.join(root, rel))).sort()) {
    const p = rel ? `${rel}/${name}` : name;
    const full = path.join(root, p);
    const e = await lstat(full);
    if (e.isDirectory()) Object.assign(out, await treeOf(root, p));
    else if (e.isSymbolicLink()) out[p] = `link ${await readlink(full)}`;
    else out[p] = `${e.uid}:${e.gid} ${(e.mode & 0o7777).toString(8)} ${createHash('sha256').update(await readFile(full)).digest('hex')}`;
  }
  return out;
}

describe('Moves service over gRPC between two agents', () => {
  let ca: CertificateAuthority;
  let caDir: string;
  let a: TestAgent;
  let b: TestAgent;
  let agents: AgentPool;
  let moves: MovesPool;
  const docker = new Docker({ socketPath: TEST_SERVICES.dockerSocket });
  const appId = randomUUID();
  const repo = `slipway-app-${appId}`;
  const folder = (t: TestAgent) => path.join(t.dataDir, 'volumes', appId);

  beforeAll(async () => {
    ({ ca, dir: caDir } = await openTestCa());
    a = await startTestAgent(ca, { nodeName: 'moves-a' });
    b = await startTestAgent(ca, { nodeName: 'moves-b' });
    agents = new AgentPool(ca.client);
    moves = new MovesPool(agents);
    await ensureTestImage(docker);
    await docker.getImage(TEST_IMAGE).tag({ repo, tag: 'd1' });
    await docker.getImage(TEST_IMAGE).tag({ repo, tag: 'd2' });
  });

  afterAll(async () => {
    agents.close();
    await a.stop();
    await b?.stop();
    for (const tag of ['d1', 'd2']) await docker.getImage(`${repo}:${tag}`).remove().catch(() => undefined);
    await rm(caDir, { recursive: true, force: true });
  });

  const input = { operationId: `move-${randomUUID()}`, workspaceId: randomUUID(), appId, diskMb: 64 };

  it('copies a project folder with its modes and links, then a catch-up overwrites changed files and keeps the others', async () => {
    await mkdir(path.join(folder(a), 'data'), { recursive: true });
    await writeFile(path.join(folder(a), 'data', 'rows.txt'), 'row 1\n');
    await writeFile(path.join(folder(a), 'run.sh'), '#!/bin/sh\n');
    await chmod(path.join(folder(a), 'run.sh'), 0o750);
    await symlink('data/rows.txt', path.join(folder(a), 'latest'));

    const first = await moves.copyFolder(a.target, b.target, { ...input, seededImageRef: `${repo}:d2` });
    expect(first.bytes).toBeGreaterThan(0);
    expect(await readFile(path.join(folder(b), 'data', 'rows.txt'), 'utf8')).toBe('row 1\n');
    expect((await stat(path.join(folder(b), 'run.sh'))).mode & 0o777).toBe(0o750);
    expect((await lstat(path.join(folder(b), 'latest'))).isSymbolicLink()).toBe(true);
    expect(await readlink(path.join(folder(b), 'latest'))).toBe('data/rows.txt');
    // The folder records the current image as its seed: the target's rollout does not seed over the copied files.
    const meta = JSON.parse(await readFile(path.join(b.dataDir, 'volumes', '.meta', `${appId}.json`), 'utf8'));
    expect(meta.seededImageId).toBe((await docker.getImage(`${repo}:d2`).inspect()).Id);

    // The source wrote more; the target wrote a file of its own meanwhile.
    await writeFile(path.join(folder(a), 'data', 'rows.txt'), 'row 1\nrow 2\n');
    await writeFile(path.join(folder(b), 'data', 'target-only.txt'), 'kept');
    await moves.copyFolder(a.target, b.target, { ...input, seededImageRef: `${repo}:d2` });
    expect(await readFile(path.join(folder(b), 'data', 'rows.txt'), 'utf8')).toBe('row 1\nrow 2\n');
    expect(await readFile(path.join(folder(b), 'data', 'target-only.txt'), 'utf8')).toBe('kept');
  });

  it('copies a folder the source does not have as nothing', async () => {
    const other = randomUUID();
    expect(await moves.copyFolder(a.target, b.target, { ...input, appId: other, seededImageRef: '' })).toEqual({ bytes: 0 });
    await expect(stat(path.join(b.dataDir, 'volumes', other))).rejects.toThrow(/ENOENT/);
  });

  it('saves image tags on one agent and loads them on the other; tags the source lacks are left out', async () => {
    const copied = await moves.copyImages(a.target, b.target, { operationId: input.operationId, workspaceId: input.workspaceId, imageRefs: [`${repo}:d1`, `${repo}:d2`, `${repo}:gone`] });
    expect(copied.bytes).toBeGreaterThan(100_000);
    expect(copied.imageRefs.sort()).toEqual([`${repo}:d1`, `${repo}:d2`]);
    expect(await moves.copyImages(a.target, b.target, { ...input, imageRefs: [`${repo}:gone`] })).toEqual({ bytes: 0, imageRefs: [] });
  });

  it("copies a database's data folder with its owners, replacing the target's earlier copy; its backups without partial files; removes backup folders", async () => {
    const databaseId = randomUUID();
    const data = (t: TestAgent) => path.join(t.dataDir, 'databases', databaseId, 'data');
    await mkdir(path.join(data(a), 'base'), { recursive: true });
    await writeFile(path.join(data(a), 'PG_VERSION'), '15\n');
    await writeFile(path.join(data(a), 'base', '1'), 'rows');
    await chown(path.join(data(a), 'base', '1'), 999, 999);
    await mkdir(data(b), { recursive: true });
    await writeFile(path.join(data(b), 'stale'), 'from an earlier copy');
    const copied = await moves.copyDatabaseFolder(a.target, b.target, { ...input, databaseId, folder: 'data' });
    expect(copied.bytes).toBeGreaterThan(0);
    expect((await readdir(data(b))).sort()).toEqual(['PG_VERSION', 'base']);
    expect(await readFile(path.join(data(b), 'base', '1'), 'utf8')).toBe('rows');
    expect((await stat(path.join(data(b), 'base', '1'))).uid).toBe(999);
    // A copy whose move gave up (its signal aborted) is cut: the target keeps the copy it had.
    await writeFile(path.join(data(a), 'base', '1'), 'rows changed later');
    await expect(moves.copyDatabaseFolder(a.target, b.target, { ...input, databaseId, folder: 'data', live: true, signal: AbortSignal.abort() })).rejects.toThrow();
    expect(await readFile(path.join(data(b), 'base', '1'), 'utf8')).toBe('rows');

    const backups = (t: TestAgent) => path.join(t.dataDir, 'backups', databaseId);
    await mkdir(backups(a), { recursive: true });
    // A dump is written uncompressed (hex text here, as a table of it dumps): it travels compressed, arrives as it was.
    const dump = Buffer.concat([Buffer.from('PGDMP'), Buffer.from(randomBytes(1024 * 1024).toString('hex'))]);
    await writeFile(path.join(backups(a), 'b1.pgdump'), dump);
    await writeFile(path.join(backups(a), 'b1.json'), '{}');
    await writeFile(path.join(backups(a), '.b2.partial'), 'half');
    const sent = await moves.copyDatabaseFolder(a.target, b.target, { ...input, databaseId, folder: 'backups' });
    expect((await readdir(backups(b))).sort()).toEqual(['b1.json', 'b1.pgdump']);
    expect((await readFile(path.join(backups(b), 'b1.pgdump'))).equals(dump)).toBe(true);
    expect(sent.bytes).toBeLessThan(dump.length * 0.7);
    expect(await moves.removeBackupFolders(a.target, [databaseId, randomUUID()])).toEqual({ removed: 1 });
    await expect(stat(backups(a))).rejects.toThrow(/ENOENT/);
    // A database the source holds no data of copies as nothing.
    expect(await moves.copyDatabaseFolder(a.target, b.target, { ...input, databaseId: randomUUID(), folder: 'data' })).toEqual({ bytes: 0 });
  });

  it("pre-copies a database's data folder, then copies only the blocks changed since, in passes: the target ends byte-identical", async () => {
    const databaseId = randomUUID();
    const data = (t: TestAgent) => path.join(t.dataDir, 'databases', databaseId, 'data');
    await mkdir(path.join(data(a), 'base', '1'), { recursive: true });
    await chmod(data(a), 0o700);
    await writeFile(path.join(data(a), 'base', '1', 'segment'), randomBytes(4 * 1024 * 1024));
    await writeFile(path.join(data(a), 'base', '1', 'old'), 'dropped later');
    await chown(path.join(data(a), 'base', '1', 'segment'), 999, 999);
    const pre = await moves.copyDatabaseFolder(a.target, b.target, { ...input, databaseId, folder: 'data', live: true });
    expect(pre.bytes).toBeGreaterThan(4 * 1024 * 1024);

    // Writes after the pre-copy: a page in the middle, an append, a new file, a dropped one.
    const segment = await open(path.join(data(a), 'base', '1', 'segment'), 'r+');
    await segment.write(randomBytes(8192), 0, 8192, 1024 * 1024);
    await segment.close();
    await writeFile(path.join(data(a), 'base', '1', 'segment'), randomBytes(100_000), { flag: 'a' });
    await writeFile(path.join(data(a), 'pg_wal'), randomBytes(200_000));
    await rm(path.join(data(a), 'base', '1', 'old'));
    const blockBytes = 64 * 1024;
    const live = await moves.copyDataDelta(a.target, b.target, { ...input, databaseId, signature: await moves.dataSignature(b.target, { databaseId, blockBytes }), live: true });
    // The changed page's block, the appended blocks and the new file: not the 4 MB again.
    expect(live.bytes).toBeGreaterThan(300_000);
    expect(live.bytes).toBeLessThan(600_000);

    await writeFile(path.join(data(a), 'pg_wal'), randomBytes(1000), { flag: 'a' });
    const final = await moves.copyDataDelta(a.target, b.target, { ...input, databaseId, signature: await moves.dataSignature(b.target, { databaseId, blockBytes }), live: false });
    expect(final.bytes).toBeLessThan(100_000);
    expect(await treeOf(data(b))).toEqual(await treeOf(data(a)));
    expect((await stat(path.join(data(b), 'base', '1', 'segment'))).uid).toBe(999);
    // Nothing changed since: nothing but the entries travels.
    const again = await moves.copyDataDelta(a.target, b.target, { ...input, databaseId, signature: await moves.dataSignature(b.target, { databaseId, blockBytes }), live: false });
    expect(again.bytes).toBeLessThan(2_000);
  });

  it('a target that is down refuses the copy with node_unavailable', async () => {
    await b.stop();
    const failed = await moves.copyImages(a.target, b.target, { ...input, imageRefs: [`${repo}:d1`] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(AppError);
    expect((failed as AppError).code).toBe('node_unavailable');
  });
});
