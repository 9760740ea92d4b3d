// What users type for sizes, CPU, times, and the small text chart of `slipway metrics`.
import { CliError, EXIT } from './output';

/** "512", "512M", "1G" → MB. */
export function parseMegabytes(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(m|mb|g|gb)?$/i.exec(text.trim());
  if (!m) throw new CliError(`${text} is not a size: write 512, 512M or 1G`, EXIT.usage, 'invalid_size');
  const n = Number(m[1]) * (/^g/i.test(m[2] ?? '') ? 1024 : 1);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${text} is not a whole number of MB`, EXIT.usage, 'invalid_size');
  return n;
}

/** "0.5", "1", "500m" (millis) → millis. */
export function parseCpu(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(m)?$/.exec(text.trim());
  if (!m) throw new CliError(`${text} is not a CPU amount: write 0.5, 2 or 500m`, EXIT.usage, 'invalid_cpu');
  const millis = m[2] ? Number(m[1]) : Math.round(Number(m[1]) * 1000);
  if (!Number.isInteger(millis) || millis < 1) throw new CliError(`${text} is not a CPU amount: write 0.5, 2 or 500m`, EXIT.usage, 'invalid_cpu');
  return millis;
}

export function parseSince(text: string, now = Date.now()): Date {
  const m = /^(\d+)\s*(s|m|h|d)$/.exec(text.trim());
  if (m) return new Date(now - Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86_400 }[m[2] as 's']! * 1000);
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw new CliError(`${text} is not a time: write 10m, 2h, 1d or a date`, EXIT.usage, 'invalid_since');
  return date;
}

const SPARK = '▁▂▃▄▅▆▇█';
export function sparkline(values: (number | null)[], width = 60): string {
  const step = Math.max(1, Math.ceil(values.length / width));
  const buckets: (number | null)[] = [];
  for (let i = 0; i < values.length; i += step) {
    const part = values.slice(i, i + step).filter((v): v is number => v !== null);
    buckets.push(part.length ? Math.max(...part) : null);
  }
  const max = Math.max(0, ...buckets.filter((v): v is number => v !== null));
  return buckets.map((v) => (v === null ? ' ' : SPARK[max === 0 ? 0 : Math.min(7, Math.floor((v / max) * 7.999))])).join('');
}
