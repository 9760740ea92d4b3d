import { freeCapacity, nextStatus } from './liveness';

describe('node liveness', () => {
  const now = new Date('2026-11-21T10:00:00.000Z');
  const ago = (ms: number) => new Date(now.getTime() - ms);

  it('is online as soon as the node answers', () => {
    expect(nextStatus({ status: 'offline', lastSeenAt: null }, true, now, 30_000)).toBe('online');
    expect(nextStatus({ status: 'online', lastSeenAt: ago(999_999) }, true, now, 30_000)).toBe('online');
  });

  it('survives one missed check, then goes offline', () => {
    expect(nextStatus({ status: 'online', lastSeenAt: ago(10_000) }, false, now, 30_000)).toBe('online');
    expect(nextStatus({ status: 'online', lastSeenAt: ago(30_000) }, false, now, 30_000)).toBe('offline');
    expect(nextStatus({ status: 'online', lastSeenAt: null }, false, now, 30_000)).toBe('offline');
    expect(nextStatus({ status: 'offline', lastSeenAt: ago(1) }, false, now, 30_000)).toBe('offline');
  });

  it('computes free capacity without going below zero', () => {
    expect(freeCapacity({ cpuMillis: 2000, memoryMb: 4096, reservedCpuMillis: 500, reservedMemoryMb: 1024 })).toEqual({ cpuMillis: 1500, memoryMb: 3072 });
    expect(freeCapacity({ cpuMillis: 1000, memoryMb: 512, reservedCpuMillis: 1500, reservedMemoryMb: 1024 })).toEqual({ cpuMillis: 0, memoryMb: 0 });
  });
});
