import { RemovalPool } from './removal-pool';

/** A removal that takes `ms` and records how many ran at once. */
function recorder() {
  let running = 0;
  const seen = { highest: 0, done: [] as number[] };
  const remove = async (n: number, ms = 5): Promise<number> => {
    running += 1;
    seen.highest = Math.max(seen.highest, running);
    await new Promise((r) => setTimeout(r, ms));
    running -= 1;
    seen.done.push(n);
    return n * 10;
  };
  return { seen, remove };
}

/** Removes `n`, then fails when it is one of `failing`. */
async function failOn(failing: number[], n: number, remove: (n: number) => Promise<number>): Promise<number> {
  await remove(n);
  if (failing.includes(n)) throw new Error(`item ${n} failed`);
  return n;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('RemovalPool (bounded parallel removal, issue 34)', () => {
  it.each([1, 3, 8])('runs at most %i removals at once and removes every item', async (bound) => {
    const pool = new RemovalPool(bound);
    const { seen, remove } = recorder();
    const results = await pool.each(range(20), (n) => remove(n));
    expect(seen.highest).toBe(bound);
    expect([...seen.done].sort((a, b) => a - b)).toEqual(range(20));
    expect(results).toEqual(range(20).map((n) => n * 10));
  });

  it('keeps one bound across concurrent callers (two workspaces torn down at once)', async () => {
    const pool = new RemovalPool(4);
    const { seen, remove } = recorder();
    await Promise.all([pool.each(range(10), (n) => remove(n)), pool.each(range(10), (n) => remove(100 + n)), pool.each(range(10), (n) => remove(200 + n))]);
    expect(seen.highest).toBe(4);
    expect(seen.done).toHaveLength(30);
  });

  it('tries every removal when some fail, then throws the first failure', async () => {
    const pool = new RemovalPool(2);
    const { seen, remove } = recorder();
    const failing = pool.each(range(8), (n) => failOn([2, 5], n, remove));
    await expect(failing).rejects.toThrow('item 2 failed');
    expect([...seen.done].sort((a, b) => a - b)).toEqual(range(8));
    expect(pool.load).toEqual({ active: 0, pending: 0 });
  });

  it('answers at once for nothing to remove', async () => {
    await expect(new RemovalPool(3).each([], async () => 1)).resolves.toEqual([]);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses a bound of %p with a sentence', (bound) => {
    expect(() => new RemovalPool(bound)).toThrow(/whole number of at least 1/);
  });
});
