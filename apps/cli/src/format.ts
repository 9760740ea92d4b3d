/** A plain-text table: a header row, then rows; columns padded to their widest cell. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90s", "30m", "1h", "7d" → milliseconds; null when it is none of those. */
export function parseDuration(text: string): number | null {
  const m = /^(\d+)\s*([smhd])$/.exec(text.trim());
  return m ? Number(m[1]) * UNITS[m[2]!]! : null;
}

/** "3m ago", "2h ago", "-" */
export function ago(date: Date | string | number | null | undefined, now = Date.now()): string {
  if (date === null || date === undefined) return '-';
  const ms = now - new Date(date).getTime();
  if (!Number.isFinite(ms)) return '-';
  if (ms < 1000) return 'just now';
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
    if (ms >= size) return `${Math.floor(ms / size)}${unit} ago`;
  }
  return 'just now';
}

export const cpu = (millis: number): string => `${(millis / 1000).toFixed(millis % 1000 === 0 ? 0 : 1)} vCPU`;
export const mem = (mb: number): string => (mb >= 1024 ? `${(mb / 1024).toFixed(1)} GiB` : `${mb} MiB`);

export function truncate(s: string, max: number): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
