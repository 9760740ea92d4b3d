import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ApiError } from '@slipway/api-client';
import { parseCpu, parseMegabytes, parseSince, sparkline } from './parse';
import { CliError, EXIT, exitCodeOf } from './output';

describe('exit codes', () => {
  it.each([
    [new ApiError(401, 'unauthorized', 'x'), EXIT.notAllowed],
    [new ApiError(403, 'forbidden', 'x'), EXIT.notAllowed],
    [new ApiError(404, 'not_found', 'x'), EXIT.notFound],
    [new ApiError(409, 'app_not_deployed', 'x'), EXIT.wrongState],
    [new ApiError(400, 'validation_failed', 'x'), EXIT.usage],
    [new ApiError(503, 'node_unavailable', 'x'), EXIT.failed],
    [new CliError('x', EXIT.notFound), EXIT.notFound],
    [new Error('x'), EXIT.failed],
  ])('%s → %i', (error, code) => {
    expect(exitCodeOf(error)).toBe(code);
  });
});

describe('parsing', () => {
  it('sizes, CPU and times', () => {
    expect(parseMegabytes('512')).toBe(512);
    expect(parseMegabytes('1G')).toBe(1024);
    expect(parseMegabytes('256mb')).toBe(256);
    expect(() => parseMegabytes('lots')).toThrow(CliError);
    expect(parseCpu('0.5')).toBe(500);
    expect(parseCpu('250m')).toBe(250);
    expect(() => parseCpu('-1')).toThrow(CliError);
    expect(parseSince('10m', 1_000_000_000).getTime()).toBe(1_000_000_000 - 600_000);
    expect(() => parseSince('yesterday-ish')).toThrow(CliError);
  });

  it('draws a sparkline, blank where there is no data', () => {
    expect(sparkline([0, 1, 2, 3, 4, 5, 6, 7, null])).toBe('▁▂▃▄▅▆▇█ ');
  });
});

describe('the command tree (through tsx: commander is an ES module)', () => {
  const tsx = (script: string, ...args: string[]) => execFileSync(process.execPath, [require.resolve('tsx/cli'), script, ...args], { encoding: 'utf8', cwd: path.join(__dirname, '..') });

  it('has an example in the help of every command', () => {
    const commands = JSON.parse(tsx('src/help-dump.ts')) as { path: string; help: string }[];
    expect(commands.length).toBeGreaterThan(50);
    expect(commands.filter((c) => !/Examples?:\n {2}\$ (slipway|eval) /.test(c.help)).map((c) => c.path)).toEqual([]);
  });

  it('completes commands and subcommands in bash and zsh', () => {
    const bash = tsx('src/main.ts', 'completion', 'bash');
    expect(bash).toContain('complete -o default -F _slipway_complete slipway');
    expect(bash).toMatch(/"db"\) out="create list ls show url connect rotate public stop start rm backups backup restore shell/);
    // bash itself completes `slipway db r` and `slipway deploy --no`.
    const complete = (line: string) =>
      execFileSync('bash', ['-c', `${bash}\nCOMP_WORDS=(${line}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _slipway_complete; echo "\${COMPREPLY[*]}"`], { encoding: 'utf8' }).trim();
    expect(complete('slipway db r')).toBe('rotate rm restore');
    expect(complete('slipway deploy --no')).toBe('--no-follow');
    expect(tsx('src/main.ts', 'completion', 'zsh')).toContain('compdef _slipway slipway');
  });
});
