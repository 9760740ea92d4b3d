// The project-files API end to end: HTTP → API → gRPC (mutual TLS) → agent → a real folder on disk. The app's
// folder is given the hostile symlinks an app could make; every hostile path, raw or encoded, on every operation
// answers 400 or 404, and the files outside the folder are checked to be unchanged and never sent back.
import { randomBytes, randomUUID } from 'node:crypto';
import { chown, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor, waitUntil } from '@slipway/testing/worker';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';
import { TEST_PUBLIC_ORIGIN } from '@slipway/testing/api';

jest.setTimeout(180_000);

const SECRET = `outside-secret-${randomUUID()}`;
const MAX = 100_000_000;

describe('project files over HTTP (API → gRPC → agent → disk)', () => {
  let p: TestPlatform;
  let owner: ApiClient;
  let ws: { id: string };
  let appId: string;
  let root: string;
  let outside: string;

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'files' });
    owner = p.client();
    await signUp(owner);
    ws = await createWorkspace(owner);
    const res = await owner.post(`/v1/workspaces/${ws.id}/apps`, { name: `files ${randomBytes(3).toString('hex')}`, kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128 });
    expect(res.status).toBe(201);
    appId = res.body.id;
    root = path.join(p.agent.dataDir, 'volumes', appId);
    outside = await mkdtemp(path.join(os.tmpdir(), 'slipway-outside-'));
  });

  afterAll(async () => {
    await rm(outside, { recursive: true, force: true });
    await p?.close();
  });

  const files = (q = '') => `/v1/workspaces/${ws.id}/apps/${appId}/files${q}`;
  const put = (client: ApiClient, filePath: string, data: string | Buffer, contentType = 'application/octet-stream') =>
    client.request('PUT', files(`/content?path=${encodeURIComponent(filePath)}`), { raw: data, headers: { 'content-type': contentType } });

  /** What the app could have made in its folder, and files outside it that must never be read or changed. */
  async function plantHostileLinks() {
    await mkdir(path.join(root, 'sub'), { recursive: true });
    await writeFile(path.join(root, 'hello.txt'), 'hello');
    await mkdir(path.join(outside, 'dir'), { recursive: true });
    await writeFile(path.join(outside, 'secret.txt'), SECRET);
    await writeFile(path.join(outside, 'dir', 'inner.txt'), SECRET);
    const link = async (target: string, at: string) => {
      await rm(path.join(root, at), { force: true });
      await symlink(target, path.join(root, at));
    };
    await link('/etc', 'etc');
    await link(outside, 'abs');
    await link(path.relative(root, outside), 'escape');
    await link(path.join(outside, 'secret.txt'), 'secret-link');
    await link(path.relative(path.join(root, 'sub'), outside), 'sub/out');
    await link('..', 'sub/parent');
  }

  async function outsideState(): Promise<string> {
    const parts: string[] = [];
    for (const dir of [outside, path.join(outside, 'dir')]) {
      for (const n of (await readdir(dir)).sort()) {
        const st = await lstat(path.join(dir, n));
        parts.push(`${dir}/${n} ${st.mode} ${st.mtimeMs} ${st.isFile() ? await readFile(path.join(dir, n), 'utf8') : ''}`);
      }
    }
    parts.push(await readFile('/etc/hostname', 'utf8').catch(() => ''));
    parts.push(String((await stat('/etc/passwd')).mtimeMs));
    return parts.join('\n');
  }

  describe('hostile paths', () => {
    // [query value as sent on the wire (already encoded), what it is]
    const HOSTILE: [string, string][] = [
      ['..', 'raw ..'],
      ['../hello.txt', 'raw ../'],
      ['sub/../../x', '.. in the middle'],
      ['%2e%2e', 'encoded ..'],
      ['%2E%2E%2Fx', 'encoded ../ (upper case)'],
      ['sub%2F..%2F..%2Fx', 'encoded / and ..'],
      ['.', 'a . segment'],
      ['sub/./hello.txt', 'a . in the middle'],
      ['%2Fetc%2Fpasswd', 'absolute'],
      ['/etc/passwd', 'absolute (raw)'],
      ['..%5C..%5Cetc%5Cpasswd', 'backslashes'],
      ['sub%5Chello.txt', 'one backslash'],
      ['a%00b', 'NUL'],
      ['a%0Ab', 'newline'],
      ['a%1Fb', 'U+001F'],
      ['a%7Fb', 'DEL'],
      ['sub%2F', 'trailing slash'],
      ['sub//hello.txt', 'empty segment'],
      [`${'a'.repeat(1025)}`, '1,025 characters'],
      ['etc', 'symlink to /etc'],
      ['etc%2Fpasswd', 'file under a symlink to /etc'],
      ['etc%2Fhostname', 'file under a symlink to /etc (hostname)'],
      ['abs%2Fsecret.txt', 'absolute symlink to a folder outside'],
      ['escape%2Fsecret.txt', 'relative symlink out of the folder'],
      ['escape%2Fdir%2Finner.txt', 'relative symlink out, deeper'],
      ['secret-link', 'symlink to a file outside (end of path)'],
      ['sub%2Fout%2Fsecret.txt', 'symlink out in the middle of a path'],
      ['sub%2Fparent%2Fescape%2Fsecret.txt', 'inside link, then a link out'],
      ['sub%2Fout%2Fdir', 'folder reached through a link in the middle'],
    ];
    /** Rows whose path ends on a symlink: deleting or renaming one acts on the link itself, inside the folder. */
    const FINAL_LINKS = ['etc', 'secret-link'];
    const THROUGH = HOSTILE.filter(([q]) => !FINAL_LINKS.includes(q));
    const ENDING_ON_A_LINK = HOSTILE.filter(([q]) => FINAL_LINKS.includes(q));
    /** A path as a JSON body carries it: percent escapes decoded, a lone % kept. */
    const bodyValue = (q: string) => decodeURIComponent(q.replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
    let before: string;

    beforeAll(async () => {
      await plantHostileLinks();
    });
    beforeEach(async () => {
      before = await outsideState();
    });
    afterEach(async () => {
      expect(await outsideState()).toBe(before);
      expect(await readFile(path.join(root, 'hello.txt'), 'utf8')).toBe('hello');
    });

    const refused = (status: number) => expect([400, 404]).toContain(status);

    it.each(HOSTILE)('list ?path=%s (%s)', async (q) => {
      const res = await owner.get(files(`?path=${q}`));
      refused(res.status);
      expect(res.text).not.toContain(SECRET);
      expect(res.text).not.toContain('secret.txt');
      expect(res.text).not.toContain('root:');
    });

    it.each(HOSTILE)('download ?path=%s (%s)', async (q) => {
      const res = await owner.get(files(`/content?path=${q}`));
      refused(res.status);
      expect(res.text).not.toContain(SECRET);
      expect(res.text).not.toContain('root:');
    });

    it.each(HOSTILE)('upload ?path=%s (%s)', async (q) => {
      const res = await owner.request('PUT', files(`/content?path=${q}`), { raw: 'pwned', headers: { 'content-type': 'application/octet-stream' } });
      refused(res.status);
    });

    it.each(HOSTILE)('upload below ?path=%s/new.txt (%s)', async (q) => {
      const res = await owner.request('PUT', files(`/content?path=${q}%2Fnew.txt`), { raw: 'pwned', headers: { 'content-type': 'application/octet-stream' } });
      refused(res.status);
    });

    // A final symlink is deleted itself (inside the folder, never its target): that is the case below.
    it.each(THROUGH)('delete ?path=%s (%s) recursively', async (q) => {
      const res = await owner.delete(files(`?path=${q}&recursive=true`));
      refused(res.status);
    });

    it.each(THROUGH)('rename from and to %s (%s)', async (q) => {
      const value = bodyValue(q);
      refused((await owner.post(files('/rename'), { from: value, to: 'stolen' })).status);
      refused((await owner.post(files('/rename'), { from: 'hello.txt', to: value })).status);
      refused((await owner.post(files('/rename'), { from: 'hello.txt', to: `${value}/x` })).status);
    });

    it.each(ENDING_ON_A_LINK)('rename onto and below %s (%s)', async (q) => {
      const value = bodyValue(q);
      // Onto a link that exists: 409 like any existing destination (the link is not followed).
      expect((await owner.post(files('/rename'), { from: 'hello.txt', to: value })).status).toBe(409);
      refused((await owner.post(files('/rename'), { from: 'hello.txt', to: `${value}/x` })).status);
    });

    it('deleting a final symlink removes the link only', async () => {
      await symlink(path.join(outside, 'secret.txt'), path.join(root, 'doomed-link'));
      expect((await owner.delete(files('?path=doomed-link'))).status).toBe(200);
      await expect(lstat(path.join(root, 'doomed-link'))).rejects.toThrow();
    });

    it('the empty path is the root for a listing only', async () => {
      expect((await owner.get(files('?path='))).status).toBe(200);
      expect((await owner.get(files('/content?path='))).status).toBe(400);
      expect((await owner.delete(files('?path=&recursive=true'))).body.error.code).toBe('invalid_path');
    });
  });

  describe('the operations', () => {
    it('upload, list, download, rename, delete', async () => {
      const data = randomBytes(3 * 1024 * 1024);
      expect((await put(owner, 'src/deep/blob.bin', data)).body).toEqual({ ok: true });
      const listing = await owner.get(files('?path=src/deep'));
      expect(listing.status).toBe(200);
      expect(listing.body).toEqual({
        path: 'src/deep',
        truncated: false,
        entries: [{ name: 'blob.bin', type: 'file', size: data.length, modifiedAt: expect.stringMatching(/Z$/), mode: '0644' }],
      });
      const res = await fetch(new URL(files('/content?path=src/deep/blob.bin'), p.base), { headers: { cookie: `svc_session=${owner.cookie('svc_session')}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect(res.headers.get('content-length')).toBe(String(data.length));
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="blob.bin"; filename*=UTF-8''blob.bin`);
      expect(Buffer.from(await res.arrayBuffer()).equals(data)).toBe(true);

      expect((await owner.post(files('/rename'), { from: 'src/deep/blob.bin', to: 'moved/blob.bin' })).body).toEqual({ ok: true });
      expect((await readFile(path.join(root, 'moved', 'blob.bin'))).equals(data)).toBe(true);
      await put(owner, 'other.bin', 'x');
      const clash = await owner.post(files('/rename'), { from: 'other.bin', to: 'moved/blob.bin' });
      expect([clash.status, clash.body.error.code]).toEqual([409, 'destination_exists']);
      const notEmpty = await owner.delete(files('?path=moved'));
      expect([notEmpty.status, notEmpty.body.error.code]).toEqual([409, 'folder_not_empty']);
      expect((await owner.delete(files('?path=moved&recursive=true'))).body).toEqual({ ok: true });
      expect((await owner.get(files('/content?path=moved/blob.bin'))).status).toBe(404);
    });

    it('answers not_a_file, not_a_folder, 404 and 415 with their codes', async () => {
      await put(owner, 'plain.txt', 'plain');
      await mkdir(path.join(root, 'folder'), { recursive: true });
      const cases: [Promise<{ status: number; body: { error: { code: string } } }>, number, string][] = [
        [owner.get(files('/content?path=folder')), 400, 'not_a_file'],
        [owner.get(files('?path=plain.txt')), 400, 'not_a_folder'],
        [owner.get(files('/content?path=nope.txt')), 404, 'not_found'],
        [owner.get(files('?path=nope')), 404, 'not_found'],
        [put(owner, 'x.json', '{}', 'application/json'), 415, 'unsupported_media_type'],
        [owner.request('PUT', files('/content?path=x'), { raw: 'x' }), 415, 'unsupported_media_type'],
        [owner.get(files('?path=a&unknown=1')), 400, 'validation_failed'],
        [owner.get(files('/content')), 400, 'validation_failed'],
        [owner.get(`/v1/workspaces/${ws.id}/apps/${randomUUID()}/files`), 404, 'not_found'],
      ];
      for (const [res, status, code] of cases) expect([(await res).status, (await res).body.error?.code]).toEqual([status, code]);
    });

    it('keeps a download name exact (RFC 5987) and writes what the app runs as owning', async () => {
      await chown(root, 1234, 1235);
      await put(owner, 'dir/ünïcödé "q".txt', 'x');
      const res = await fetch(new URL(files(`/content?path=${encodeURIComponent('dir/ünïcödé "q".txt')}`), p.base), { headers: { cookie: `svc_session=${owner.cookie('svc_session')}` } });
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="_n_c_d_ _q_.txt"; filename*=UTF-8''%C3%BCn%C3%AFc%C3%B6d%C3%A9%20%22q%22.txt`);
      await res.arrayBuffer();
      for (const rel of ['dir', 'dir/ünïcödé "q".txt']) {
        const st = await stat(path.join(root, rel));
        expect([st.uid, st.gid]).toEqual([1234, 1235]);
      }
      await chown(root, 0, 0);
    });

    it('a viewer lists but does not download or change; another workspace gets 404', async () => {
      await put(owner, 'v.txt', 'v');
      const viewer = p.client();
      const v = await signUp(viewer);
      expect((await owner.post(`/v1/workspaces/${ws.id}/members`, { email: v.email, role: 'viewer' })).status).toBe(201);
      expect((await viewer.get(files())).status).toBe(200);
      expect((await viewer.get(files('/content?path=v.txt'))).status).toBe(403);
      expect((await put(viewer, 'v.txt', 'changed')).status).toBe(403);
      expect((await viewer.post(files('/rename'), { from: 'v.txt', to: 'w.txt' })).status).toBe(403);
      expect((await viewer.delete(files('?path=v.txt'))).status).toBe(403);

      const stranger = p.client();
      await signUp(stranger);
      const own = await createWorkspace(stranger);
      for (const res of [
        await stranger.get(files()),
        await stranger.get(files('/content?path=v.txt')),
        await put(stranger, 'v.txt', 'changed'),
        await stranger.delete(files('?path=v.txt')),
        // Their own workspace's path with our app id: the app is not theirs.
        await stranger.get(`/v1/workspaces/${own.id}/apps/${appId}/files`),
        await stranger.request('PUT', `/v1/workspaces/${own.id}/apps/${appId}/files/content?path=v.txt`, { raw: 'x', headers: { 'content-type': 'application/octet-stream' } }),
      ]) {
        expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
      }
      expect(await readFile(path.join(root, 'v.txt'), 'utf8')).toBe('v');
    });
  });

  describe('on a running app', () => {
    it('edit → restart → new behaviour: the app sees a PUT at once, runs new code after a restart, and a redeploy keeps it', async () => {
      const apps = `/v1/workspaces/${ws.id}/apps`;
      const created = await owner.post(apps, { name: `edit ${randomBytes(3).toString('hex')}`, kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128 });
      const app = created.body as { id: string; url: string };
      const appFiles = (q: string) => `${apps}/${app.id}/files${q}`;
      const putHere = (filePath: string, data: string) =>
        owner.request('PUT', appFiles(`/content?path=${encodeURIComponent(filePath)}`), { raw: data, headers: { 'content-type': 'application/octet-stream' } });
      const deployed = async () => {
        const d = (await owner.post(`${apps}/${app.id}/deployments`, {})).body;
        const got = await waitUntil(async () => (await owner.get(`${apps}/${app.id}/deployments/${d.id}`)).body, (x) => ['live', 'failed'].includes(x.status), 60_000, 'the deployment to finish');
        expect({ status: got.status, failureReason: got.failureReason }).toEqual({ status: 'live', failureReason: null });
        return got;
      };
      const serves = (expected: string, at = '/') =>
        waitUntil(() => p.viaIngress(app.url, at).catch(() => null), (r) => isDeepStrictEqual([r?.status, r?.body], [200, expected]), 20_000, `${at} to answer ${JSON.stringify(expected)}`);

      await deployed();
      await serves('v1\n');
      // The code the app runs is in its project folder (seeded from the image): read it, change it, write it back.
      const listing = (await owner.get(appFiles('?path='))).body;
      expect(listing.entries.map((e: { name: string }) => e.name)).toEqual(expect.arrayContaining(['server.js', 'seed.txt']));
      const source = (await owner.get(appFiles('/content?path=server.js'))).text;
      expect(source).toContain("return res.end(version + '\\n')");
      const edited = source.replace("return res.end(version + '\\n')", "return res.end('edited ' + version + '\\n')");
      expect((await putHere('server.js', edited)).body).toEqual({ ok: true });

      // At once: the file is there for the app (it reads /app/<name> on each request)…
      expect((await putHere('notes/today.txt', 'written through the API')).status).toBe(200);
      await serves('written through the API', '/file/notes/today.txt');
      // …but the running process keeps its code until a restart.
      expect((await p.viaIngress(app.url)).body).toBe('v1\n');

      const before = (await owner.get(`${apps}/${app.id}`)).body.runningSince;
      expect((await owner.post(`${apps}/${app.id}/restart`)).status).toBe(200);
      await waitFor(async () => (await owner.get(`${apps}/${app.id}`)).body.runningSince !== before, 30_000, 'the restart');
      await serves('edited v1\n');

      // A later deployment of the same image keeps the changed file.
      await deployed();
      await serves('edited v1\n');
      expect((await owner.get(appFiles('/content?path=server.js'))).text).toBe(edited);
    });
  });

  describe('upload limits and interruptions', () => {
    const cookie = () => `svc_session=${owner.cookie('svc_session')}`;

    /** A PUT streamed from a generator of `total` bytes; resolves with the status as soon as the answer arrives. */
    function streamPut(filePath: string, total: number, o: { declareLength: boolean; abortAfter?: number }): Promise<{ status: number; body: string; sent: number }> {
      return new Promise((resolve, reject) => {
        const url = new URL(files(`/content?path=${encodeURIComponent(filePath)}`), p.base);
        const headers: Record<string, string> = { cookie: cookie(), origin: TEST_PUBLIC_ORIGIN, 'content-type': 'application/octet-stream' };
        if (o.declareLength) headers['content-length'] = String(total);
        const req = http.request(url, { method: 'PUT', headers });
        let sent = 0;
        let answered = false;
        const chunk = Buffer.alloc(1024 * 1024, 0x61);
        req.on('response', (res) => {
          answered = true;
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, body, sent }));
          res.on('error', () => resolve({ status: res.statusCode!, body, sent }));
        });
        req.on('error', (e) => (answered ? undefined : o.abortAfter !== undefined ? resolve({ status: 0, body: '', sent }) : reject(e)));
        const pump = () => {
          while (!answered && sent < total) {
            if (o.abortAfter !== undefined && sent >= o.abortAfter) {
              req.destroy();
              resolve({ status: 0, body: '', sent });
              return;
            }
            const n = Math.min(chunk.length, total - sent);
            sent += n;
            if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void req.once('drain', pump);
          }
          if (!answered && sent >= total) req.end();
        };
        pump();
      });
    }

    it('100 MB + 1 byte answers 413 (declared: before any byte is read; chunked: as soon as the limit is passed); the old file stays', async () => {
      await put(owner, 'big.bin', 'old');
      const declared = await streamPut('big.bin', MAX + 1, { declareLength: true });
      expect(declared.status).toBe(413);
      expect(JSON.parse(declared.body).error.code).toBe('payload_too_large');
      const chunked = await streamPut('big.bin', MAX + 1, { declareLength: false });
      expect(chunked.status).toBe(413);
      expect(JSON.parse(chunked.body).error.code).toBe('payload_too_large');
      expect(await readFile(path.join(root, 'big.bin'), 'utf8')).toBe('old');
      expect((await readdir(root)).filter((n) => n.includes('slipway-upload'))).toEqual([]);
    });

    it('exactly 100 MB is accepted', async () => {
      const ok = await streamPut('big.bin', MAX, { declareLength: false });
      expect(ok.status).toBe(200);
      expect((await stat(path.join(root, 'big.bin'))).size).toBe(MAX);
      await rm(path.join(root, 'big.bin'));
    });

    it('an upload aborted by the client leaves the old content and no temporary file', async () => {
      await put(owner, 'keep.bin', 'old content');
      const aborted = await streamPut('keep.bin', 50 * 1024 * 1024, { declareLength: true, abortAfter: 10 * 1024 * 1024 });
      expect(aborted.status).toBe(0);
      const uploads = async () => (await readdir(root)).filter((n) => n.includes('slipway-upload'));
      expect(await waitUntil(uploads, (left) => left.length === 0, 5_000, 'the temporary upload file to go').catch(() => uploads())).toEqual([]);
      expect(await readFile(path.join(root, 'keep.bin'), 'utf8')).toBe('old content');
    });
  });
});
