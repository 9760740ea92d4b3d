import { createHmac, randomBytes } from 'node:crypto';

/**
 * Session and API-token values are 256-bit random strings; only an HMAC-SHA256 of them, keyed with the session
 * secret, is stored. A database leak alone does not yield usable credentials, and the lookup is one indexed
 * equality query (no argon2 on the hot path: the values are random, not guessable passwords).
 */
export class SecretHasher {
  constructor(private readonly key: string) {
    if (key.length < 16) throw new Error('The session secret is too short');
  }

  hash(value: string): Buffer {
    return createHmac('sha256', this.key).update(value).digest();
  }
}

/** A fresh credential: `prefix` + 43 characters of base64url (32 random bytes). */
export function newSecret(prefix = ''): string {
  return prefix + randomBytes(32).toString('base64url');
}
