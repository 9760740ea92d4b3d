// slipway completion bash|zsh: a script made from the command tree itself, so it never lags behind the commands.
import type { Command } from 'commander';
import { CliError, EXIT } from '../output';
import { example } from '../program-kit';

interface Node {
  path: string;
  words: string[];
}

/** Every command path ('' for the top) with the words that may follow it: subcommands and options. */
export function commandTree(program: Command): Node[] {
  const nodes: Node[] = [];
  const walk = (cmd: Command, prefix: string) => {
    const subs = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
    const options = [...cmd.options, ...(prefix ? [] : [])].flatMap((o) => [o.long, o.short].filter((x): x is string => Boolean(x)));
    nodes.push({ path: prefix, words: [...subs.flatMap((c) => [c.name(), ...c.aliases()]), ...options, '--help'] });
    for (const c of subs) walk(c, prefix ? `${prefix} ${c.name()}` : c.name());
  };
  walk(program, '');
  return nodes;
}

export function completionScript(program: Command, shell: string): string {
  const nodes = commandTree(program);
  const globals = program.options.flatMap((o) => [o.long].filter((x): x is string => Boolean(x)));
  const cases = nodes.map((n) => `    "${n.path}") out="${[...n.words, ...(n.path ? globals : [])].join(' ')}" ;;`).join('\n');
  const body = `_slipway_words() {
  # $1: the command path typed so far (subcommands only)
  local out=""
  case "$1" in
${cases}
  esac
  echo "$out"
}
_slipway_path() {
  # The longest known command path among the words before the cursor.
  local cmdpath="" w
  for w in "$@"; do
    case "$w" in -*) continue ;; esac
    if [ -n "$(_slipway_words "\${cmdpath:+$cmdpath }$w")" ]; then cmdpath="\${cmdpath:+$cmdpath }$w"; fi
  done
  echo "$cmdpath"
}
`;
  if (shell === 'bash') {
    return `# bash completion for slipway: eval "$(slipway completion bash)" in ~/.bashrc
${body}_slipway_complete() {
  local cur=\${COMP_WORDS[COMP_CWORD]}
  local cmdpath
  cmdpath=$(_slipway_path "\${COMP_WORDS[@]:1:COMP_CWORD-1}")
  COMPREPLY=( $(compgen -W "$(_slipway_words "$cmdpath")" -- "$cur") )
}
complete -o default -F _slipway_complete slipway
`;
  }
  if (shell === 'zsh') {
    return `#compdef slipway
# zsh completion for slipway: eval "$(slipway completion zsh)" in ~/.zshrc (after compinit)
${body}_slipway() {
  local cmdpath
  cmdpath=$(_slipway_path "\${(@)words[2,CURRENT-1]}")
  local -a choices
  choices=(\${=$(_slipway_words "$cmdpath")})
  compadd -a choices
}
compdef _slipway slipway
`;
  }
  throw new CliError(`No completion for ${shell}: bash or zsh`, EXIT.usage, 'invalid_shell');
}

export function completionCommand(program: Command): void {
  example(program.command('completion').description('Shell completion: add eval "$(slipway completion bash)" to ~/.bashrc (or zsh to ~/.zshrc)').argument('<shell>', 'bash or zsh'), 'eval "$(slipway completion bash)"').action(
    (shell: string) => {
      process.stdout.write(completionScript(program, shell));
    },
  );
}
