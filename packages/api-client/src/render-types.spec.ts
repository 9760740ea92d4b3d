import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// The committed types against the contracts of this checkout. The check runs as a process (see scripts/generate.ts).
describe('generated API types', () => {
  it('match the contracts (run `pnpm --filter @slipway/api-client generate` when this fails)', () => {
    const script = join(__dirname, '..', 'scripts', 'generate.ts');
    const run = spawnSync(process.execPath, [require.resolve('tsx/cli'), script, '--check'], { encoding: 'utf8', timeout: 60_000 });
    expect(`${run.stdout}${run.stderr}`.trim()).toBe('src/generated/api.d.ts is current');
    expect(run.status).toBe(0);
  });
});
