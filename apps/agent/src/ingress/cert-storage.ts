import { chown, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AppError, type StoredCertificate } from '@slipway/core';

/**
 * One certificate as Caddy's `file_system` storage keeps it (certmagic's layout):
 * `<root>/certificates/<issuerKey>/<hostname>/<hostname>.crt|.key|.json`. Caddy (certmagic) looks there before it
 * orders a certificate for a hostname it manages, and loads an entry only with all three files (the `.json` holds its
 * names and the issuer's data). A workspace move (issue 32) copies the entries of its custom domains from the old
 * owner's storage into the new owner's, so the new owner serves and later renews the same certificate. An entry is
 * core's `StoredCertificate` (the moves' port carries the same shape).
 */
export type { StoredCertificate };

/** A hostname as Caddy stores it (lowercase letters, digits, dots, hyphens): never a path of its own. */
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
/** An issuer's folder name (certmagic's safe key: a CA's host and path with `-`, or `local`). */
const ISSUER_KEY = /^[a-z0-9][a-z0-9._-]{0,200}$/;

export function storableHostname(hostname: string): string {
  const host = hostname.toLowerCase();
  if (!HOSTNAME.test(host)) throw new AppError('validation_failed', `${JSON.stringify(hostname)} is not a hostname`);
  return host;
}

function storableIssuerKey(key: string): string {
  if (!ISSUER_KEY.test(key) || key.includes('..')) throw new AppError('validation_failed', `${JSON.stringify(key)} is not an issuer's folder name`);
  return key;
}

const certificatesDir = (root: string) => path.join(root, 'certificates');

/** The issuers' folders of the storage (none when it was never written). */
async function issuers(root: string): Promise<string[]> {
  const names = await readdir(certificatesDir(root)).catch(() => [] as string[]);
  return names.filter((n) => ISSUER_KEY.test(n)).sort();
}

/**
 * The stored entry of each hostname that has a complete one (chain, key, metadata); when several issuers' folders hold
 * one, the one whose chain was written last.
 */
export async function readStoredCertificates(root: string, hostnames: string[]): Promise<StoredCertificate[]> {
  const out: StoredCertificate[] = [];
  for (const hostname of [...new Set(hostnames.map(storableHostname))]) {
    let best: { entry: StoredCertificate; at: number } | null = null;
    for (const issuerKey of await issuers(root)) {
      const dir = path.join(certificatesDir(root), issuerKey, hostname);
      const file = (ext: string) => path.join(dir, `${hostname}.${ext}`);
      const read = await Promise.all([readFile(file('crt'), 'utf8'), readFile(file('key'), 'utf8'), readFile(file('json'), 'utf8'), stat(file('crt'))]).catch(() => null);
      if (!read) continue;
      const [certificatePem, keyPem, metaJson, info] = read;
      if (!best || info.mtimeMs > best.at) best = { entry: { hostname, issuerKey, certificatePem, keyPem, metaJson }, at: info.mtimeMs };
    }
    if (best) out.push(best.entry);
  }
  return out;
}

/**
 * Writes each entry into the storage (files 0600, folders 0700, owned like the storage's root when it exists: Caddy
 * must read them), replacing what that hostname had under any issuer. Each file is written beside and renamed into
 * place, the `.json` last: Caddy never reads a half-written entry.
 */
export async function writeStoredCertificates(root: string, entries: StoredCertificate[]): Promise<number> {
  const owner = await stat(root).then((s) => ({ uid: s.uid, gid: s.gid }), () => null);
  const made: string[] = [];
  const mkdirOwned = async (dir: string) => {
    const first = await mkdir(dir, { recursive: true, mode: 0o700 });
    if (first) made.push(first);
  };
  let stored = 0;
  for (const e of entries) {
    const hostname = storableHostname(e.hostname);
    const issuerKey = storableIssuerKey(e.issuerKey);
    if (!e.certificatePem.includes('-----BEGIN CERTIFICATE-----')) throw new AppError('validation_failed', `The certificate of ${hostname} is not a PEM certificate`);
    if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(e.keyPem)) throw new AppError('validation_failed', `The key of ${hostname} is not a PEM private key`);
    try {
      JSON.parse(e.metaJson);
    } catch {
      throw new AppError('validation_failed', `The metadata of ${hostname}'s certificate is not JSON`);
    }
    await removeStoredCertificates(root, [hostname]);
    const dir = path.join(certificatesDir(root), issuerKey, hostname);
    await mkdirOwned(dir);
    for (const [ext, content] of [['crt', e.certificatePem], ['key', e.keyPem], ['json', e.metaJson]] as const) {
      const file = path.join(dir, `${hostname}.${ext}`);
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, content, { mode: 0o600 });
      if (owner) await chown(tmp, owner.uid, owner.gid);
      await rename(tmp, file);
    }
    stored++;
  }
  // The folders this made (the first of each new chain, and everything under it) belong to the storage's owner too.
  if (owner) for (const top of made) await chownTree(top, owner.uid, owner.gid);
  return stored;
}

async function chownTree(dir: string, uid: number, gid: number): Promise<void> {
  await chown(dir, uid, gid);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) await chownTree(path.join(dir, entry.name), uid, gid);
  }
}

/** Removes each hostname's entry under every issuer's folder; answers how many hostnames had one. */
export async function removeStoredCertificates(root: string, hostnames: string[]): Promise<number> {
  let removed = 0;
  for (const hostname of [...new Set(hostnames.map(storableHostname))]) {
    let had = false;
    for (const issuerKey of await issuers(root)) {
      const dir = path.join(certificatesDir(root), issuerKey, hostname);
      if (!(await stat(dir).then(() => true, () => false))) continue;
      await rm(dir, { recursive: true, force: true });
      had = true;
    }
    if (had) removed++;
  }
  return removed;
}
