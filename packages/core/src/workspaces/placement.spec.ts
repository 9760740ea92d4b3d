import { chooseNode } from './placement';

const node = (name: string, memoryMb: number, reservedMemoryMb: number, cpuMillis = 4000, reservedCpuMillis = 0) => ({
  id: name,
  name,
  cpuMillis,
  memoryMb,
  reservedCpuMillis,
  reservedMemoryMb,
});

describe('workspace placement', () => {
  it('picks the node with the most free memory, then the most free vCPU, then by name', () => {
    expect(chooseNode([node('a', 8192, 6000), node('b', 4096, 0), node('c', 16384, 15000)])?.name).toBe('b');
    expect(chooseNode([node('a', 4096, 0, 4000, 3000), node('b', 4096, 0, 4000, 1000)])?.name).toBe('b');
    expect(chooseNode([node('b', 4096, 0), node('a', 4096, 0)])?.name).toBe('a');
  });

  it('answers null without nodes', () => {
    expect(chooseNode([])).toBeNull();
  });
});
