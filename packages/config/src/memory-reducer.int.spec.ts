import { spawn } from 'node:child_process';
import path from 'node:path';

// A process that grows its heap in a burst and then goes quiet, as the agent after a burst of deployments: with
// keepMemoryReducerWorking, V8's memory reducer finds the allocation rate low and runs a memory-reducing GC. Without
// it (Node 24), every tick reads "high alloc" and no reducing GC comes until an unrelated full GC (decision 0042).
const CHILD = `
import { keepMemoryReducerWorking } from ${JSON.stringify(path.join(__dirname, 'memory-reducer.ts'))};
if (process.env.NUDGE === '1') keepMemoryReducerWorking(5_000);
let kept = [];
for (let i = 0; i < 40; i++) {
  kept.push(Array.from({ length: 50_000 }, (_, j) => ({ i, j, s: String(i * j) })));
  if (kept.length > 8) kept.shift();
}
kept = null;
setInterval(() => {}, 1_000);
`;

/** The child's V8 trace until a memory-reducing GC shows in it (then the child is stopped), or until `ms` passed. */
function traceUntilReduced(nudge: boolean, ms: number): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--trace-memory-reducer', '--trace-gc', '--input-type=module', '-e', CHILD], {
      cwd: __dirname,
      env: { ...process.env, NUDGE: nudge ? '1' : '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const done = () => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      resolve(out);
    };
    const timer = setTimeout(done, ms);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Mark-Compact (reduce)')) done();
    });
    child.on('exit', () => resolve(out));
  });
}

describe('keepMemoryReducerWorking', () => {
  it('lets V8 run a memory-reducing GC once the process is quiet after a burst', async () => {
    const trace = await traceUntilReduced(true, 40_000);
    expect(trace).toMatch(/Memory reducer: low alloc/);
    expect(trace).toMatch(/Mark-Compact \(reduce\)/);
  }, 60_000);
});
