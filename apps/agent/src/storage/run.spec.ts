import { CommandError, run, SYSTEM_PATH } from './run';

describe('run', () => {
  it("gives the tool only PATH and C messages: none of the agent's own variables", async () => {
    process.env.SLIPWAY_TEST_SECRET = 'not for mkfs';
    try {
      const env = (await run(['env'])).trim().split('\n').sort();
      expect(env).toEqual(['LC_ALL=C', `PATH=${SYSTEM_PATH}`]);
    } finally {
      delete process.env.SLIPWAY_TEST_SECRET;
    }
  });
  it('rejects with the argv, the exit code and what the tool printed on stderr', async () => {
    const err = (await run(['ls', '/no/such/dir']).catch((e: unknown) => e)) as CommandError;
    expect(err).toBeInstanceOf(CommandError);
    expect(err.exitCode).toBe(2);
    expect(err.stderr).toMatch(/No such file or directory/);
  });
});
