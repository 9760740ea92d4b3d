// The native addon is loaded on the first hash or check, not with the package: the agent and the worker import
// @slipway/core and never hash a password (bench/idle: a few MB of each one's idle memory).
type Argon2 = typeof import('@node-rs/argon2');
let argon2: Promise<Argon2> | undefined;
const loadArgon2 = (): Promise<Argon2> => (argon2 ??= import('@node-rs/argon2'));

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(passwordHash: string, password: string): Promise<boolean>;
}

// @node-rs/argon2's Algorithm is a const enum, which isolatedModules cannot read: its Argon2id member is 2.
const ARGON2ID = 2;

/** OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane. */
export const ARGON2ID_DEFAULTS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/** argon2id with the parameters encoded in each hash, so they can be raised later without breaking old hashes. */
export class Argon2idHasher implements PasswordHasher {
  constructor(private readonly params = ARGON2ID_DEFAULTS) {}

  async hash(password: string): Promise<string> {
    return (await loadArgon2()).hash(password, { algorithm: ARGON2ID, ...this.params });
  }

  async verify(passwordHash: string, password: string): Promise<boolean> {
    const { verify } = await loadArgon2();
    try {
      return await verify(passwordHash, password);
    } catch {
      return false;
    }
  }
}
