// Pure readers of what the kernel prints, kept apart so they are unit-tested without mounting anything.

export interface Mount {
  mountPoint: string;
  /** `major:minor` of the device, the same in every mount namespace that holds it. */
  device: string;
  fsType: string;
  source: string;
  superOptions: string;
}

/** mountinfo escapes space, tab, newline and backslash as `\ooo`. */
const unescape = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

/** The last mount on `mountPoint` (an absolute, resolved path) in /proc/self/mountinfo, or null. */
export function findMount(mountinfo: string, mountPoint: string): Mount | null {
  let found: Mount | null = null;
  for (const line of mountinfo.split('\n')) {
    const m = parseLine(line);
    if (m?.mountPoint === mountPoint) found = m;
  }
  return found;
}

/** Every mount point's last mount, from one read of /proc/self/mountinfo (for many look-ups: one parse, not one per look-up). */
export function mountTable(mountinfo: string): Map<string, Mount> {
  const table = new Map<string, Mount>();
  for (const line of mountinfo.split('\n')) {
    const m = parseLine(line);
    if (m) table.set(m.mountPoint, m);
  }
  return table;
}

function parseLine(line: string): Mount | null {
  const [left, right] = line.split(' - ');
  if (!left || !right) return null;
  const fields = left.split(' ');
  const [fsType, source, superOptions] = right.split(' ');
  if (fields.length < 5 || !fsType) return null;
  return { mountPoint: unescape(fields[4]!), device: fields[2]!, fsType, source: unescape(source ?? ''), superOptions: superOptions ?? '' };
}

const MB = 1024 * 1024;
/** Bytes to whole MB, rounded up (a folder holding one byte uses 1 MB). */
export const toMbCeil = (bytes: number) => Math.ceil(bytes / MB);
export const mbToBytes = (mb: number) => mb * MB;
