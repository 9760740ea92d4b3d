// The command tree of `slipway`.
import { Command } from 'commander';
import { appCommands } from './commands/apps';
import { authCommands } from './commands/auth';
import { completionCommand } from './commands/completion';
import { dbCommands } from './commands/db';
import { deployCommands } from './commands/deploy';
import { domainCommands } from './commands/domains';
import { fileCommands } from './commands/files';
import { workspaceCommands } from './commands/workspace';
import { VERSION } from './context';
import { example } from './program-kit';

export function buildProgram(): Command {
  const program = new Command('slipway')
    .description('Deploy folders to Slipway, follow builds, tail logs, manage variables, databases and domains')
    .version(VERSION, '-v, --version')
    .option('-w, --workspace <workspace>', 'the workspace (id or slug; default: the linked one, or the login’s)')
    .option('-a, --app <app>', 'the app (id, name or slug; default: the one linked in this folder)')
    .option('--json', "print the API's objects as JSON")
    .showHelpAfterError('(add --help for usage)')
    .configureHelp({ sortSubcommands: false })
    .exitOverride();
  example(program, 'slipway login --url https://slipway.example.com', 'slipway apps create web --link', 'slipway deploy');
  authCommands(program);
  deployCommands(program);
  appCommands(program);
  fileCommands(program);
  domainCommands(program);
  dbCommands(program);
  workspaceCommands(program);
  completionCommand(program);
  // Every subcommand exits through the same door as the program (main.ts maps it to an exit code).
  const override = (cmd: Command) => {
    for (const c of cmd.commands) {
      c.exitOverride();
      override(c);
    }
  };
  override(program);
  return program;
}
