// slipway: the user CLI. Exit codes: 0 done, 1 failed, 2 usage, 3 not found, 4 wrong state, 5 not allowed.
import { CommanderError } from 'commander';
import { buildProgram } from './program';
import { describeError, EXIT, exitCodeOf } from './output';

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and version exit 0; commander already printed what was wrong with the usage.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    process.stderr.write(`${describeError(error)}\n`);
    return exitCodeOf(error);
  }
}

// A closed stdout (slipway logs | head) is not a failure.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(EXIT.ok);
});

void main(process.argv).then((code) => {
  process.exitCode = code;
});
