import { createHmac, randomBytes } from 'node:crypto';

/**
 * Session and API-token values are 256-bit random strings; only an HMAC-SHA256 of them, keyed with the session
 * secret, is stored. A database leak alone does not yield usable credentials, and the lookup is one indexed
 * equality query (no argon2 on the hot path: the values are random, not guessable passwords).
 */
export class SecretHasher {
  /**
   * The hashes of the credentials seen last (every request hashes its credential: ~1.7 µs of HMAC, a few % of a
   * read served from memory, bench/reads). Bounded; the oldest go first. It holds nothing this process could not
   * already compute or did not already hold: the values arrive with each request, and the key is here.
   */
  private readonly recent = new Map<string, Buffer>();

  constructor(
    private readonly key: string,
    private readonly remember = 4_096,
  ) {
    if (key.length < 16) throw new Error('The session secret is too short');
  }

  hash(value: string): Buffer {
    const known = this.recent.get(value);
    if (known) return Buffer.from(known);
    const digest = createHmac('sha256', this.key).update(value).digest();
    if (this.remember > 0) {
      if (this.recent.size >= this.remember) this.recent.delete(this.recent.keys().next().value!);
      this.recent.set(value, Buffer.from(digest));
    }
    return digest;
  }
}

/** A fresh credential: `prefix` + 43 characters of base64url (32 random bytes). */
export function newSecret(prefix = ''): string {
  return prefix + randomBytes(32).toString('base64url');
}
