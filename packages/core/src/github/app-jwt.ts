import { createPrivateKey, createSign, type KeyObject } from 'node:crypto';

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/**
 * The GitHub App's JWT (RS256, node:crypto): `iat` 60 s in the past (clock drift), `exp` 9 minutes ahead (GitHub
 * accepts at most 10), `iss` the app id (numeric ids are sent as numbers: older GitHub Enterprise Server wants that).
 */
export function appJwt(appId: string, key: KeyObject | string, nowMs: number): string {
  const now = Math.floor(nowMs / 1000);
  const iss: string | number = /^[0-9]+$/.test(appId) ? Number(appId) : appId;
  const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const payload = b64url(JSON.stringify({ iat: now - 60, exp: now + 9 * 60, iss }));
  const signer = createSign('RSA-SHA256');
  signer.update(`${header}.${payload}`);
  const privateKey = typeof key === 'string' ? createPrivateKey(key) : key;
  return `${header}.${payload}.${b64url(signer.sign(privateKey))}`;
}
