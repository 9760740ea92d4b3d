import { DeployLog, LOG_ROW_OVERHEAD_BYTES } from './deploy-log';

describe('DeployLog bounds', () => {
  const clock = () => new Date('2026-11-24T20:00:00Z');

  it('keeps a million printed lines to its cap and says in a last line how much was dropped', async () => {
    const stored: { seq: number; text: string }[] = [];
    const log = new DeployLog({ appendLogs: async (_id, lines) => void stored.push(...lines) }, 'd-1', 0, clock, { maxBytes: 1_000_000, storedBytes: 0 });
    for (let i = 0; i < 1_000_000; i++) log.add('build', `line ${i} of a noisy build`);
    await log.close();
    const bytes = stored.reduce((n, l) => n + Buffer.byteLength(l.text) + LOG_ROW_OVERHEAD_BYTES, 0);
    expect(bytes).toBeLessThanOrEqual(1_000_000);
    expect(stored.length).toBeLessThan(20_000);
    const last = stored.at(-1)!;
    expect(last.text).toMatch(/^… \d+ more lines \(\d+\.\d MB\) dropped: a deployment keeps at most 1\.0 MB of build and deploy log$/);
    expect(stored.map((l) => l.seq)).toEqual(stored.map((_, i) => i + 1));
  });

  it('counts what earlier tries stored, and adds nothing when the log kept within its cap', async () => {
    const stored: string[] = [];
    const full = new DeployLog({ appendLogs: async (_id, lines) => void stored.push(...lines.map((l) => l.text)) }, 'd-1', 10, clock, { maxBytes: 1000, storedBytes: 990 });
    full.add('deploy', 'a line that no longer fits');
    await full.close();
    expect(stored).toEqual([expect.stringMatching(/^… 1 more line \(0\.0 MB\) dropped/)]);

    stored.length = 0;
    const quiet = new DeployLog({ appendLogs: async (_id, lines) => void stored.push(...lines.map((l) => l.text)) }, 'd-2', 0, clock, { maxBytes: 1000, storedBytes: 0 });
    quiet.add('deploy', 'Live');
    await quiet.close();
    expect(stored).toEqual(['Live']);
  });
});
