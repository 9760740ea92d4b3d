import { findMount, mountTable, toMbCeil } from './mountinfo';

const MOUNTINFO = [
  '22 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard',
  '114 22 7:3 / /srv/slipway/volumes/0b6c-a rw,noatime - ext4 /dev/loop3 rw',
  '115 22 7:4 / /srv/slip\\040way/volumes/x rw - ext4 /dev/loop4 rw',
  '116 114 0:60 / /srv/slipway/volumes/0b6c-a rw - tmpfs tmpfs rw,size=1024k',
].join('\n');

describe('findMount', () => {
  it('finds the last mount on a path, with its type and source', () => {
    expect(findMount(MOUNTINFO, '/srv/slipway/volumes/0b6c-a')).toEqual({
      mountPoint: '/srv/slipway/volumes/0b6c-a',
      device: '0:60',
      fsType: 'tmpfs',
      source: 'tmpfs',
      superOptions: 'rw,size=1024k',
    });
  });

  it('reads escaped paths and answers null for a path that is not a mount point', () => {
    expect(findMount(MOUNTINFO, '/srv/slip way/volumes/x')?.source).toBe('/dev/loop4');
    expect(findMount(MOUNTINFO, '/srv/slipway/volumes')).toBeNull();
    expect(findMount(MOUNTINFO, '/srv/slipway/volumes/0b6c')).toBeNull();
  });
});

describe('mountTable', () => {
  it('gives every mount point its last mount, as findMount does one by one', () => {
    const table = mountTable(MOUNTINFO);
    expect([...table.keys()]).toEqual(['/', '/srv/slipway/volumes/0b6c-a', '/srv/slip way/volumes/x']);
    for (const point of table.keys()) expect(table.get(point)).toEqual(findMount(MOUNTINFO, point));
    expect(table.get('/srv/slipway/volumes/0b6c-a')?.fsType).toBe('tmpfs');
  });
});

describe('toMbCeil', () => {
  it('rounds up to whole MB', () => {
    expect(toMbCeil(0)).toBe(0);
    expect(toMbCeil(1)).toBe(1);
    expect(toMbCeil(1024 * 1024)).toBe(1);
    expect(toMbCeil(1024 * 1024 + 1)).toBe(2);
  });
});
