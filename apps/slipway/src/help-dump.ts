// Prints every command path with its --help text as JSON (cli.spec.ts: commander is an ES module jest cannot load,
// so the spec runs this through tsx).
import type { Command } from 'commander';
import { commandTree } from './commands/completion';
import { buildProgram } from './program';

const program = buildProgram();
const out = commandTree(program).map(({ path }) => {
  let cmd: Command = program;
  for (const name of path ? path.split(' ') : []) cmd = cmd.commands.find((c) => c.name() === name)!;
  let help = '';
  cmd.configureOutput({ writeOut: (s) => (help += s) });
  cmd.outputHelp();
  return { path, help };
});
process.stdout.write(JSON.stringify(out));
