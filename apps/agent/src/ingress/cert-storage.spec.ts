import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readStoredCertificates, removeStoredCertificates, writeStoredCertificates, type StoredCertificate } from './cert-storage';

const CHAIN = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY-----\n';
const entry = (hostname: string, o: Partial<StoredCertificate> = {}): StoredCertificate => ({
  hostname,
  issuerKey: '198.18.0.1-14000-dir',
  certificatePem: CHAIN,
  keyPem: KEY,
  metaJson: JSON.stringify({ sans: [hostname], issuer_data: { url: 'https://ca/cert/1' } }),
  ...o,
});

/** An entry as Caddy (certmagic's file_system storage) writes it: certificates/<issuer>/<host>/<host>.crt|.key|.json. */
async function caddyWrote(root: string, issuer: string, host: string, chain = CHAIN): Promise<void> {
  const dir = path.join(root, 'certificates', issuer, host);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, `${host}.crt`), chain);
  await writeFile(path.join(dir, `${host}.key`), KEY);
  await writeFile(path.join(dir, `${host}.json`), JSON.stringify({ sans: [host] }));
}

describe("custom domains' certificates in Caddy's storage (what a workspace move carries, issue 32)", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'slipway-certs-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it("reads the entries Caddy wrote (chain, key, metadata, issuer's folder); a hostname without a complete entry is absent", async () => {
    await caddyWrote(root, '198.18.0.1-14000-dir', 'shop.example.test');
    await caddyWrote(root, '198.18.0.1-14000-dir', 'half.example.test');
    await rm(path.join(root, 'certificates', '198.18.0.1-14000-dir', 'half.example.test', 'half.example.test.json'));
    const read = await readStoredCertificates(root, ['Shop.Example.Test', 'half.example.test', 'none.example.test']);
    expect(read).toEqual([{ hostname: 'shop.example.test', issuerKey: '198.18.0.1-14000-dir', certificatePem: CHAIN, keyPem: KEY, metaJson: '{"sans":["shop.example.test"]}' }]);
    expect(await readStoredCertificates(path.join(root, 'never-written'), ['shop.example.test'])).toEqual([]);
  });

  it('answers the entry written last when two issuers hold one', async () => {
    await caddyWrote(root, 'acme-v02.api.letsencrypt.org-directory', 'shop.example.test', `${CHAIN}old`);
    await caddyWrote(root, '198.18.0.1-14000-dir', 'shop.example.test', `${CHAIN}new`);
    const old = path.join(root, 'certificates', 'acme-v02.api.letsencrypt.org-directory', 'shop.example.test', 'shop.example.test.crt');
    await utimes(old, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    expect((await readStoredCertificates(root, ['shop.example.test']))[0]).toMatchObject({ issuerKey: '198.18.0.1-14000-dir', certificatePem: `${CHAIN}new` });
  });

  it("writes an entry where Caddy looks for it (0600 files in 0700 folders), replacing the hostname's entries under any issuer; read back the same", async () => {
    await caddyWrote(root, 'acme-v02.api.letsencrypt.org-directory', 'shop.example.test');
    expect(await writeStoredCertificates(root, [entry('shop.example.test')])).toBe(1);
    const dir = path.join(root, 'certificates', '198.18.0.1-14000-dir', 'shop.example.test');
    expect((await readdir(dir)).sort()).toEqual(['shop.example.test.crt', 'shop.example.test.json', 'shop.example.test.key']);
    expect(await readFile(path.join(dir, 'shop.example.test.key'), 'utf8')).toBe(KEY);
    expect((await stat(path.join(dir, 'shop.example.test.key'))).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(await readdir(path.join(root, 'certificates', 'acme-v02.api.letsencrypt.org-directory'))).toEqual([]);
    expect(await readStoredCertificates(root, ['shop.example.test'])).toEqual([entry('shop.example.test')]);
  });

  it('refuses what is not a hostname, an issuer folder, a PEM certificate and key, or JSON metadata: nothing escapes the storage', async () => {
    const cases: [Partial<StoredCertificate>, RegExp][] = [
      [{ hostname: '../../etc' }, /is not a hostname/],
      [{ hostname: 'a/b.example.test' }, /is not a hostname/],
      [{ issuerKey: '..' }, /is not an issuer's folder name/],
      [{ issuerKey: 'a/../../b' }, /is not an issuer's folder name/],
      [{ certificatePem: 'hello' }, /is not a PEM certificate/],
      [{ keyPem: CHAIN }, /is not a PEM private key/],
      [{ metaJson: '{' }, /is not JSON/],
    ];
    for (const [patch, why] of cases) {
      await expect(writeStoredCertificates(root, [entry('shop.example.test', patch)])).rejects.toThrow(why);
    }
    await expect(readStoredCertificates(root, ['../x'])).rejects.toThrow(/is not a hostname/);
    expect(await readdir(root)).toEqual([]);
  });

  it("removes a hostname's entries under every issuer and keeps the others'", async () => {
    await caddyWrote(root, 'a-dir', 'shop.example.test');
    await caddyWrote(root, 'b-dir', 'shop.example.test');
    await caddyWrote(root, 'a-dir', 'other.example.test');
    expect(await removeStoredCertificates(root, ['shop.example.test', 'gone.example.test'])).toBe(1);
    expect(await readStoredCertificates(root, ['shop.example.test'])).toEqual([]);
    expect((await readStoredCertificates(root, ['other.example.test'])).map((c) => c.hostname)).toEqual(['other.example.test']);
  });
});
