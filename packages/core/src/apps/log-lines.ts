import type { LogChunk } from '@slipway/contracts';

/** Longest line kept in a log chunk; longer lines are cut and the chunk says `truncated`. */
export const MAX_LOG_LINE = 16 * 1024;

/** Splits a container's output into numbered lines (1-based) and answers the page after `after`. */
export function chunkLines(text: string, page: { after: number; limit: number }, now: Date): LogChunk {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const slice = lines.slice(page.after, page.after + page.limit);
  let truncated = false;
  const at = now.toISOString();
  const data = slice.map((raw, i) => {
    let text = raw.replace(/\r$/, '');
    if (text.length > MAX_LOG_LINE) {
      text = text.slice(0, MAX_LOG_LINE);
      truncated = true;
    }
    return { seq: page.after + i + 1, phase: 'runtime' as const, text, at };
  });
  const nextAfter = page.after + slice.length;
  return { data, nextAfter, done: nextAfter >= lines.length, truncated };
}

/** Splits streamed output into whole lines, keeping a partial last line for the next chunk. */
export class LineSplitter {
  private pending = '';
  push(chunk: string): string[] {
    this.pending += chunk;
    const parts = this.pending.split('\n');
    this.pending = parts.pop() ?? '';
    return parts.map((l) => l.replace(/\r$/, ''));
  }
  flush(): string[] {
    const rest = this.pending;
    this.pending = '';
    return rest ? [rest] : [];
  }
}
