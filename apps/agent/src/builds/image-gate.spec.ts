import { ImageGate } from './image-gate';

const tick = () => new Promise((r) => setImmediate(r));

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('ImageGate', () => {
  it('runs builds side by side and a removal only once they are done', async () => {
    const gate = new ImageGate();
    const order: string[] = [];
    const a = deferred();
    const b = deferred();
    const ba = gate.building(async () => {
      order.push('build a starts');
      await a.promise;
      order.push('build a ends');
    });
    const bb = gate.building(async () => {
      order.push('build b starts');
      await b.promise;
      order.push('build b ends');
    });
    const rm = gate.removal(async () => {
      order.push('removal');
    });
    await tick();
    expect(order).toEqual(['build a starts', 'build b starts']);
    a.resolve();
    await tick();
    expect(order).not.toContain('removal');
    b.resolve();
    await Promise.all([ba, bb, rm]);
    expect(order).toEqual(['build a starts', 'build b starts', 'build a ends', 'build b ends', 'removal']);
  });

  it('holds a build that starts while a removal waits until that removal is done', async () => {
    const gate = new ImageGate();
    const order: string[] = [];
    const first = deferred();
    const b1 = gate.building(async () => {
      await first.promise;
      order.push('build 1');
    });
    const rm = gate.removal(async () => {
      order.push('removal');
    });
    const b2 = gate.building(async () => {
      order.push('build 2');
    });
    await tick();
    expect(order).toEqual([]);
    first.resolve();
    await Promise.all([b1, rm, b2]);
    expect(order).toEqual(['build 1', 'removal', 'build 2']);
  });

  it('runs removals one at a time and frees the gate when one throws', async () => {
    const gate = new ImageGate();
    const order: string[] = [];
    const r1 = gate.removal(async () => {
      order.push('r1');
      throw new Error('gone');
    });
    const r2 = gate.removal(async () => {
      order.push('r2');
    });
    await expect(r1).rejects.toThrow('gone');
    await r2;
    await gate.building(async () => {
      order.push('build');
    });
    expect(order).toEqual(['r1', 'r2', 'build']);
    expect(gate.busy).toBe(false);
  });
});
