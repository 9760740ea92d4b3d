// Compares two V8 heap snapshots (bench/idle/run.ts --heap DIR writes them) as DevTools' "Comparison" view does: live
// objects grouped by constructor (strings, code, arrays… by their kind), with counts and self sizes, the groups that
// grew the most first. What a process keeps per app shows as groups growing with the apps and shrinking on deletion.
// Usage: npx tsx bench/idle/heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [--top 30] [--per N]
//   (--per N: also the growth divided by N, e.g. the number of apps between the two snapshots).
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] }; node_count: number };
  nodes: number[];
  strings: string[];
}

/** Live objects of one snapshot by group: `Constructor` for objects and closures, `(kind)` for the rest. */
export function groups(s: Snapshot): Map<string, { count: number; bytes: number }> {
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const out = new Map<string, { count: number; bytes: number }>();
  for (let i = 0; i < s.nodes.length; i += fields.length) {
    const type = types[s.nodes[i + typeAt]!]!;
    const name = s.strings[s.nodes[i + nameAt]!] ?? '';
    const key = type === 'object' ? name : type === 'closure' ? `${name || '(anonymous)'}()` : type === 'native' ? `(native) ${name.split(' ')[0]}` : `(${type})`;
    const g = out.get(key) ?? { count: 0, bytes: 0 };
    g.count++;
    g.bytes += s.nodes[i + sizeAt]!;
    out.set(key, g);
  }
  return out;
}

function main(): void {
  const [a, b] = process.argv.slice(2).filter((x, i, all) => !x.startsWith('--') && !all[i - 1]?.startsWith('--'));
  if (!a || !b) throw new Error('usage: heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [--top 30] [--per N]');
  const opt = (name: string, fallback: number) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const top = opt('top', 30);
  const per = opt('per', 0);
  const before = groups(JSON.parse(readFileSync(a, 'utf8')) as Snapshot);
  const after = groups(JSON.parse(readFileSync(b, 'utf8')) as Snapshot);
  const total = (m: Map<string, { bytes: number }>) => [...m.values()].reduce((s, g) => s + g.bytes, 0);
  const rows = [...new Set([...before.keys(), ...after.keys()])].map((k) => {
    const x = before.get(k) ?? { count: 0, bytes: 0 };
    const y = after.get(k) ?? { count: 0, bytes: 0 };
    return { k, count: y.count - x.count, bytes: y.bytes - x.bytes, now: y.bytes };
  });
  rows.sort((p, q) => q.bytes - p.bytes);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
  process.stdout.write(`heap (live objects' self sizes): ${kb(total(before))} → ${kb(total(after))} (${kb(total(after) - total(before))}${per ? `, ${((total(after) - total(before)) / per).toFixed(0)} B per unit` : ''})\n`);
  process.stdout.write(`| group | count Δ | bytes Δ | ${per ? 'bytes per unit | ' : ''}bytes after |\n|---|---|---|${per ? '---|' : ''}---|\n`);
  for (const r of rows.slice(0, top)) process.stdout.write(`| ${r.k.slice(0, 80)} | ${r.count} | ${kb(r.bytes)} | ${per ? `${(r.bytes / per).toFixed(0)} | ` : ''}${kb(r.now)} |\n`);
}

if (require.main === module) main();
