// A small .zip writer for tests and benchmarks: real sample apps zipped on the spot, and hostile archives a normal
// archiver refuses to write (absolute names, "..", symlink and device entries, lying sizes).
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  data?: Buffer | string;
  /** Unix mode including the type bits (0o100644 file, 0o040755 folder, 0o120777 symlink, 0o020644 char device). */
  mode?: number;
  /** Store instead of deflate. */
  store?: boolean;
}

/** The archive as one buffer (entries made "on Unix", UTF-8 names). */
export function writeZip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const raw = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data ?? '', 'utf8');
    const isDir = e.name.endsWith('/');
    const mode = e.mode ?? (isDir ? 0o040755 : 0o100644);
    const method = e.store || isDir ? 0 : 8;
    const body = method === 8 ? deflateRawSync(raw, { level: 9 }) : raw;
    const crc = crc32(raw);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    const shared = { method, crc, compressed: body.length, size: raw.length, nameLength: name.length };
    writeSharedFields(local, 6, shared);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, body);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    writeSharedFields(central, 8, shared);
    central.writeUInt32LE((((mode << 16) | (isDir ? 0x10 : 0)) >>> 0), 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** A folder's files as entries (for zipping sample apps). */
export function entriesOf(files: Record<string, string | Buffer>): ZipEntry[] {
  return Object.entries(files).map(([name, data]) => ({ name, data }));
}

/** The run of fields the local and the central header share: flags (UTF-8 names), method, time, CRC, sizes, name length. */
function writeSharedFields(header: Buffer, at: number, f: { method: number; crc: number; compressed: number; size: number; nameLength: number }): void {
  header.writeUInt16LE(0x800, at);
  header.writeUInt16LE(f.method, at + 2);
  header.writeUInt32LE(0, at + 4);
  header.writeUInt32LE(f.crc, at + 8);
  header.writeUInt32LE(f.compressed, at + 12);
  header.writeUInt32LE(f.size, at + 16);
  header.writeUInt16LE(f.nameLength, at + 20);
}
