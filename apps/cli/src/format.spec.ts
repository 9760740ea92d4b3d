import { ago, cpu, mem, parseDuration, table, truncate } from './format';

describe('CLI formatting', () => {
  it('pads columns to their widest cell', () => {
    expect(table(['A', 'BB'], [['xxx', '1'], ['y', '22']])).toBe('A    BB\nxxx  1\ny    22');
  });

  it('parses durations', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('30m')).toBe(1_800_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('7d')).toBe(604_800_000);
    expect(parseDuration('1 h')).toBe(3_600_000);
    expect(parseDuration('1w')).toBeNull();
    expect(parseDuration('h')).toBeNull();
  });

  it('says how long ago', () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(ago(null, now)).toBe('-');
    expect(ago(new Date(now - 5_000), now)).toBe('5s ago');
    expect(ago(new Date(now - 3 * 3_600_000), now)).toBe('3h ago');
    expect(ago(now, now)).toBe('just now');
  });

  it('formats sizes and long text', () => {
    expect(cpu(2000)).toBe('2 vCPU');
    expect(cpu(500)).toBe('0.5 vCPU');
    expect(mem(512)).toBe('512 MiB');
    expect(mem(4096)).toBe('4.0 GiB');
    expect(truncate('a\nb  c', 10)).toBe('a b c');
    expect(truncate('abcdefghijk', 5)).toBe('abcd…');
  });
});
