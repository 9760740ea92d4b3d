import { createHmac } from 'node:crypto';
import { SecretHasher } from './secrets';

const KEY = 'a session key of enough length';
const hmac = (value: string) => createHmac('sha256', KEY).update(value).digest();

describe('SecretHasher', () => {
  it('gives the HMAC-SHA256 of the value under the key, the first time and every time after', () => {
    const hasher = new SecretHasher(KEY);
    expect(hasher.hash('token-1').equals(hmac('token-1'))).toBe(true);
    expect(hasher.hash('token-1').equals(hmac('token-1'))).toBe(true);
    expect(hasher.hash('token-2').equals(hmac('token-2'))).toBe(true);
  });

  it('hands out a copy of what it remembers: a caller changing its buffer changes no later hash', () => {
    const hasher = new SecretHasher(KEY);
    hasher.hash('token-1').fill(0);
    const again = hasher.hash('token-1');
    again.fill(0);
    expect(hasher.hash('token-1').equals(hmac('token-1'))).toBe(true);
  });

  it('remembers at most its bound, the oldest forgotten first, and stays right past it', () => {
    const hasher = new SecretHasher(KEY, 2);
    for (const value of ['a', 'b', 'c', 'a', 'd', 'b']) expect(hasher.hash(value).equals(hmac(value))).toBe(true);
    expect((hasher as unknown as { recent: Map<string, Buffer> }).recent.size).toBe(2);
  });

  it('refuses a key too short to be a secret', () => {
    expect(() => new SecretHasher('short')).toThrow(/too short/);
  });
});
