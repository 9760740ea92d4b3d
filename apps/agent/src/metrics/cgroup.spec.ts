// The parsers on file contents captured from this machine (fixtures/README.md says which are real captures).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  cgroupPathsOf,
  firstPid,
  parseNetDev,
  parseProcCgroup,
  parseV1Blkio,
  parseV1CpuUsage,
  parseV1Memory,
  parseV2CpuStat,
  parseV2IoStat,
  parseV2Memory,
  readCounters,
  statValue,
} from './cgroup';

const fixture = (name: string) => readFileSync(path.join(__dirname, 'fixtures', name), 'utf8');

describe('cgroup v1 parsers (captured from a container on this machine)', () => {
  it('reads cpuacct.usage in nanoseconds', () => {
    expect(parseV1CpuUsage(fixture('v1/cpuacct.usage'))).toBe(23_194_671);
  });

  it('counts memory without the inactive page cache, as docker stats does', () => {
    // 2,314,240 in use, of which 753,664 inactive file pages.
    expect(parseV1Memory(fixture('v1/memory.usage_in_bytes'), fixture('v1/memory.stat'))).toBe(2_314_240 - 753_664);
  });

  it('reads blkio bytes per device, summed, and the Total-only file of a VM that does not account I/O as zero', () => {
    expect(parseV1Blkio(fixture('v1/blkio.throttle.io_service_bytes'))).toEqual({ readBytes: 0, writeBytes: 0 });
    expect(parseV1Blkio(fixture('v1/blkio.with-devices'))).toEqual({ readBytes: 16_789_504 + 1_048_576, writeBytes: 8_388_608 + 4_096 });
  });

  it('never answers negative memory', () => {
    expect(parseV1Memory('100\n', 'total_inactive_file 500\n')).toBe(0);
  });
});

describe('cgroup v2 parsers', () => {
  it('reads usage_usec of cpu.stat as nanoseconds (captured from the hybrid hierarchy)', () => {
    expect(parseV2CpuStat(fixture('v2/cpu.stat'))).toBe(23_194_000);
  });

  it('counts memory.current without inactive_file', () => {
    expect(parseV2Memory(fixture('v2/memory.current'), fixture('v2/memory.stat'))).toBe(48_234_496 - 12_951_552);
  });

  it('sums rbytes and wbytes of io.stat over devices', () => {
    expect(parseV2IoStat(fixture('v2/io.stat'))).toEqual({ readBytes: 16_789_504 + 1_048_576, writeBytes: 8_388_608 + 4_096 });
    expect(parseV2IoStat('')).toEqual({ readBytes: 0, writeBytes: 0 });
  });
});

describe('/proc files', () => {
  it("sums the container's interfaces but loopback from net/dev", () => {
    expect(parseNetDev(fixture('proc-pid-net-dev'))).toEqual({ rxBytes: 806, txBytes: 0 });
    const busy = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:    9600     138    0    0    0     0          0         0     9600     138    0    0    0     0       0          0
  eth0:    1454      18    0    0    0     0          0         0      481       6    0    0    0     0       0          0
  eth1:1000000     18    0    0    0     0          0         0      19       6    0    0    0     0       0          0
`;
    expect(parseNetDev(busy)).toEqual({ rxBytes: 1_001_454, txBytes: 500 });
  });

  it('finds the counter files of each controller from /proc/<pid>/cgroup', () => {
    const text = fixture('proc-pid-cgroup');
    const id = /cpuacct:\/docker\/([0-9a-f]+)/.exec(text)![1];
    expect(parseProcCgroup(text).get('memory')).toBe(`/docker/${id}`);
    expect(cgroupPathsOf(text, 'v1', '/sys/fs/cgroup')).toEqual({
      mode: 'v1',
      cpu: `/sys/fs/cgroup/cpuacct/docker/${id}`,
      memory: `/sys/fs/cgroup/memory/docker/${id}`,
      io: `/sys/fs/cgroup/blkio/docker/${id}`,
      procs: `/sys/fs/cgroup/cpuacct/docker/${id}/cgroup.procs`,
    });
    expect(cgroupPathsOf(text, 'v2', '/sys/fs/cgroup')?.cpu).toBe(`/sys/fs/cgroup/docker/${id}`);
    expect(cgroupPathsOf('0::/system.slice/docker-abc.scope\n', 'v2')?.memory).toBe('/sys/fs/cgroup/system.slice/docker-abc.scope');
    expect(cgroupPathsOf('0::/x\n', 'v1')).toBeNull();
  });
});

describe('statValue (one line of a stat file, no split)', () => {
  it('finds a key on the first, a middle and a last line without its newline, and never by its suffix', () => {
    const text = 'cache 10\ninactive_file 7\ntotal_inactive_file 9\nrss 3';
    expect(statValue(text, 'cache')).toBe(10);
    expect(statValue(text, 'inactive_file')).toBe(7);
    expect(statValue(text, 'total_inactive_file')).toBe(9);
    expect(statValue(text, 'rss')).toBe(3);
    expect(statValue(text, 'file')).toBeNull();
    expect(statValue('total_inactive_file 9\n', 'inactive_file')).toBeNull();
    expect(statValue('usage_usec x\n', 'usage_usec')).toBeNull();
  });
});

describe('readCounters and firstPid (a v1 tree and /proc laid out in a folder)', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'cgroup-'));
    for (const dir of ['cpuacct/c1', 'memory/c1', 'blkio/c1', 'proc/42/net']) mkdirSync(path.join(root, dir), { recursive: true });
    cpSync(path.join(__dirname, 'fixtures/v1/cpuacct.usage'), path.join(root, 'cpuacct/c1/cpuacct.usage'));
    cpSync(path.join(__dirname, 'fixtures/v1/memory.usage_in_bytes'), path.join(root, 'memory/c1/memory.usage_in_bytes'));
    cpSync(path.join(__dirname, 'fixtures/v1/memory.stat'), path.join(root, 'memory/c1/memory.stat'));
    cpSync(path.join(__dirname, 'fixtures/proc-pid-net-dev'), path.join(root, 'proc/42/net/dev'));
    writeFileSync(path.join(root, 'cpuacct/c1/cgroup.procs'), '42\n57\n');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const paths = () => cgroupPathsOf('4:cpuacct:/c1\n5:memory:/c1\n6:blkio:/c1\n', 'v1', root)!;

  it("reads the container's counters from its files at once (no blkio file: no I/O counted)", () => {
    expect(readCounters(paths(), 42, path.join(root, 'proc'))).toEqual({
      cpuNs: 23_194_671,
      memoryBytes: 2_314_240 - 753_664,
      rxBytes: 806,
      txBytes: 0,
      readBytes: 0,
      writeBytes: 0,
    });
    expect(firstPid(paths())).toBe(42);
  });

  it('throws for a container whose process is gone, and finds no pid in a cgroup that is gone', () => {
    expect(() => readCounters(paths(), 43, path.join(root, 'proc'))).toThrow(/ENOENT/);
    expect(firstPid({ ...paths(), procs: path.join(root, 'cpuacct/gone/cgroup.procs') })).toBeNull();
  });
});
