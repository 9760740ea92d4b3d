// The parsers on file contents captured from this machine (fixtures/README.md says which are real captures).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  cgroupPathsOf,
  parseNetDev,
  parseProcCgroup,
  parseV1Blkio,
  parseV1CpuUsage,
  parseV1Memory,
  parseV2CpuStat,
  parseV2IoStat,
  parseV2Memory,
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
