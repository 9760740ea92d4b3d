import type { RateCounter } from '../ports/rate-counter';
import { LoginThrottle } from './login-throttle';

/** An in-memory RateCounter with a fixed TTL, enough to test the policy. */
class MemoryCounter implements RateCounter {
  counts = new Map<string, number>();
  async peek(keys: string[]) {
    return keys.map((k) => ({ count: this.counts.get(k) ?? 0, ttlSeconds: this.counts.has(k) ? 600 : 0 }));
  }
  async hit(keys: string[]) {
    for (const k of keys) this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
  }
  async reset(key: string) {
    this.counts.delete(key);
  }
}

describe('the login throttle', () => {
  const limits = { perEmail: 3, perIp: 5, windowSeconds: 600 };

  it('refuses an email after its limit of failures, with the seconds to wait', async () => {
    const t = new LoginThrottle(new MemoryCounter(), limits);
    for (let i = 0; i < 3; i++) {
      await t.check('a@x.test', '10.0.0.1');
      await t.recordFailure('a@x.test', '10.0.0.1');
    }
    await expect(t.check('a@x.test', '10.0.0.2')).rejects.toMatchObject({ code: 'too_many_attempts', retryAfter: 600 });
    await expect(t.check('b@x.test', '10.0.0.2')).resolves.toBeUndefined();
  });

  it('refuses an IP after its limit of failures across emails', async () => {
    const t = new LoginThrottle(new MemoryCounter(), limits);
    for (let i = 0; i < 5; i++) await t.recordFailure(`u${i}@x.test`, '10.0.0.9');
    await expect(t.check('new@x.test', '10.0.0.9')).rejects.toMatchObject({ code: 'too_many_attempts' });
    await expect(t.check('new@x.test', '10.0.0.10')).resolves.toBeUndefined();
  });

  it('clears the email count on success, not the IP count', async () => {
    const counter = new MemoryCounter();
    const t = new LoginThrottle(counter, limits);
    await t.recordFailure('a@x.test', '10.0.0.1');
    await t.recordSuccess('a@x.test');
    expect([...counter.counts.keys()].some((k) => k.startsWith('login:email:'))).toBe(false);
    expect(counter.counts.get('login:ip:10.0.0.1')).toBe(1);
  });
});
