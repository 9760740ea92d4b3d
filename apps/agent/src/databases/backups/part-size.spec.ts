import { partBytesFor } from './backups.runtime';

// Issue 33: S3 takes at most 10,000 parts per upload; fixed 8 MiB parts would refuse dumps past 80 GB.
describe("the offsite upload's part size", () => {
  const MiB = 1024 * 1024;

  it('is 8 MiB for dumps up to about 70 GB, and when the size is unknown', () => {
    expect(partBytesFor(0)).toBe(8 * MiB);
    expect(partBytesFor(1536 * MiB)).toBe(8 * MiB);
    expect(partBytesFor(9000 * 8 * MiB)).toBe(8 * MiB);
  });

  it('grows in whole MiB so that 9,000 parts hold the largest dump expected', () => {
    const hint = 750 * 1024 * MiB; // a 500 GB disk × 1.5
    const part = partBytesFor(hint);
    expect(part % MiB).toBe(0);
    expect(part * 9000).toBeGreaterThanOrEqual(hint);
    expect(part).toBe(86 * MiB);
  });
});
