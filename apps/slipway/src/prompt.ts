// Questions on the terminal (login's email and password); the password is not echoed.
import { createInterface } from 'node:readline';
import { CliError, EXIT } from './output';

export async function ask(question: string, hidden = false): Promise<string> {
  if (!process.stdin.isTTY) throw new CliError(`${question.replace(/:\s*$/, '')} is needed: pass it as an option (no terminal to ask on)`, EXIT.usage, 'input_required');
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  if (hidden) {
    // readline echoes through _writeToOutput: write the question, then nothing of what is typed.
    const out = rl as unknown as { _writeToOutput: (s: string) => void; output: NodeJS.WriteStream };
    let asked = false;
    out._writeToOutput = (s: string) => {
      if (!asked) {
        process.stderr.write(s);
        asked = true;
      }
    };
  }
  return new Promise((resolve) => {
    rl.question(question, (answer) => {
      rl.close();
      if (hidden) process.stderr.write('\n');
      resolve(answer.trim());
    });
  });
}

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}
