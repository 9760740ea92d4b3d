// ANSI SGR colours of build logs to styled runs. Only what build tools print: the 8 + 8 bright foreground colours,
// bold, dim, italic, underline and resets; 256-colour and RGB foregrounds map to the nearest of the 16; every other
// escape sequence is dropped. Pure (no DOM), so it is unit-tested.

export interface Run {
  text: string;
  /** CSS classes: `fg-0`…`fg-15`, `b`, `d`, `i`, `u`; empty for plain text. */
  cls: string;
}

// CSI … final byte, OSC … BEL/ST, and lone ESC + one character.
// eslint-disable-next-line no-control-regex -- escape sequences are what this matches
const ESCAPES = /\x1b\[([0-9;?]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]/g;

interface State {
  fg: number | undefined;
  b: boolean;
  d: boolean;
  i: boolean;
  u: boolean;
}

function classOf(s: State): string {
  const out: string[] = [];
  if (s.fg !== undefined) out.push(`fg-${s.fg}`);
  if (s.b) out.push('b');
  if (s.d) out.push('d');
  if (s.i) out.push('i');
  if (s.u) out.push('u');
  return out.join(' ');
}

function nearest16(n: number): number {
  if (n < 16) return n;
  if (n >= 232) return n < 244 ? 8 : 7;
  const c = n - 16;
  const r = Math.floor(c / 36) > 2 ? 1 : 0;
  const g = Math.floor((c % 36) / 6) > 2 ? 1 : 0;
  const b = c % 6 > 2 ? 1 : 0;
  return r + g * 2 + b * 4 + 8;
}

function apply(s: State, params: string): void {
  const codes = params === '' ? [0] : params.split(';').map((p) => (p === '' ? 0 : Number(p)));
  for (let k = 0; k < codes.length; k++) {
    const c = codes[k]!;
    if (c === 0) Object.assign(s, { fg: undefined, b: false, d: false, i: false, u: false });
    else if (c === 1) s.b = true;
    else if (c === 2) s.d = true;
    else if (c === 3) s.i = true;
    else if (c === 4) s.u = true;
    else if (c === 22) s.b = s.d = false;
    else if (c === 23) s.i = false;
    else if (c === 24) s.u = false;
    else if (c >= 30 && c <= 37) s.fg = c - 30;
    else if (c >= 90 && c <= 97) s.fg = c - 90 + 8;
    else if (c === 39) s.fg = undefined;
    else if (c === 38 && codes[k + 1] === 5) {
      s.fg = nearest16(codes[k + 2] ?? 7);
      k += 2;
    } else if (c === 38 && codes[k + 1] === 2) {
      const [r = 0, g = 0, b = 0] = codes.slice(k + 2, k + 5);
      s.fg = (r > 127 ? 1 : 0) + (g > 127 ? 2 : 0) + (b > 127 ? 4 : 0) + 8;
      k += 4;
    } else if ((c === 48 || c === 58) && (codes[k + 1] === 5 || codes[k + 1] === 2)) k += codes[k + 1] === 5 ? 2 : 4;
  }
}

/** The styled runs of one line. */
export function parseAnsi(line: string): Run[] {
  if (!line.includes('\x1b')) return [{ text: line, cls: '' }];
  const runs: Run[] = [];
  const s: State = { fg: undefined, b: false, d: false, i: false, u: false };
  let last = 0;
  for (const m of line.matchAll(ESCAPES)) {
    if (m.index > last) runs.push({ text: line.slice(last, m.index), cls: classOf(s) });
    if (m[2] === 'm') apply(s, m[1] ?? '');
    last = m.index + m[0].length;
  }
  if (last < line.length) runs.push({ text: line.slice(last), cls: classOf(s) });
  return runs;
}
