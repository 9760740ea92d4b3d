// The few pieces every command shares: an action wrapper that builds the Context from the global options, and the
// example each command's --help shows.
import type { Command } from 'commander';
import { Context, type GlobalOptions } from './context';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Handler = (ctx: Context, opts: any, ...args: any[]) => Promise<void>;

/**
 * Commander calls an action with (positional…, options, command); the handler gets (context, every option including
 * the global ones, positional…). `context: false` for commands that work without credentials (login, logout).
 */
export function action(settings: { context?: boolean }, handler: Handler): (...args: any[]) => Promise<void> {
  return async (...args: any[]) => {
    const command = args[args.length - 1] as Command;
    const positional = args.slice(0, -2);
    const opts = command.optsWithGlobals() as GlobalOptions & Record<string, unknown>;
    const ctx = settings.context === false ? (undefined as unknown as Context) : new Context(opts);
    await handler(ctx, opts, ...positional);
  };
}
/* eslint-enable @typescript-eslint/no-explicit-any */

export function example(command: Command, ...lines: string[]): Command {
  return command.addHelpText('after', `\nExample${lines.length > 1 ? 's' : ''}:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
}
