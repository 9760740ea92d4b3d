import type { NodeCapacity } from '../ports/repositories';
import { chooseNode, placeWorkspace } from './placement';
import { noServerSentence } from './workspace.service';

const node = (name: string, memoryMb: number, reservedMemoryMb: number, cpuMillis = 4000, reservedCpuMillis = 0, extra: Partial<NodeCapacity> = {}): NodeCapacity => ({
  id: name,
  name,
  cpuMillis,
  memoryMb,
  reservedCpuMillis,
  reservedMemoryMb,
  ...extra,
});
const app = { cpuMillis: 100, memoryMb: 128, diskMb: 512 };

describe('workspace placement', () => {
  it('picks the node with the most free memory, then the most free vCPU, then by name', () => {
    expect(chooseNode([node('a', 8192, 6000), node('b', 4096, 0), node('c', 16384, 15000)])?.name).toBe('b');
    expect(chooseNode([node('a', 4096, 0, 4000, 3000), node('b', 4096, 0, 4000, 1000)])?.name).toBe('b');
    expect(chooseNode([node('b', 4096, 0), node('a', 4096, 0)])?.name).toBe('a');
    expect(placeWorkspace([node('a', 8192, 6000), node('b', 4096, 0)], app)).toEqual({ node: expect.objectContaining({ name: 'b' }) });
  });

  it('answers null without nodes', () => {
    expect(chooseNode([])).toBeNull();
    expect(placeWorkspace([], app)).toEqual({ node: null, reason: 'no_server', cordoned: 0 });
  });

  it('never places on a cordoned server, and says no_server when every server is cordoned', () => {
    expect(placeWorkspace([node('a', 8192, 0, 4000, 0, { cordoned: true }), node('b', 1024, 0)], app)).toEqual({ node: expect.objectContaining({ name: 'b' }) });
    expect(placeWorkspace([node('a', 8192, 0, 4000, 0, { cordoned: true })], app)).toEqual({ node: null, reason: 'no_server', cordoned: 1 });
  });

  it('says in words why no server takes a new workspace: none online, or every online one cordoned', () => {
    expect(noServerSentence(0)).toBe('No server is online and open to new workspaces');
    expect(noServerSentence(1)).toMatch(/only online server is cordoned/);
    expect(noServerSentence(3)).toMatch(/all 3 online servers are cordoned/);
  });

  it('never places on a server under its disk reserve or without disk for the first app, even with the most memory', () => {
    const low = node('a', 8192, 0, 4000, 0, { disk: { freeMb: 900, reserveMb: 1000 } });
    const tight = node('b', 8192, 0, 4000, 0, { disk: { freeMb: 1300, reserveMb: 1000 } });
    const ok = node('c', 1024, 0, 4000, 0, { disk: { freeMb: 5000, reserveMb: 1000 } });
    expect(placeWorkspace([low, tight, ok], app)).toEqual({ node: expect.objectContaining({ name: 'c' }) });
  });

  it('answers no_capacity naming the resource the roomiest server lacks, with what it has', () => {
    expect(placeWorkspace([node('a', 1024, 1000), node('b', 1024, 960)], app)).toEqual({ node: null, reason: 'no_capacity', resource: 'memory', requested: 128, available: 64 });
    expect(placeWorkspace([node('a', 4096, 0, 2000, 1950)], app)).toEqual({ node: null, reason: 'no_capacity', resource: 'cpu', requested: 100, available: 50 });
    expect(placeWorkspace([node('a', 4096, 0, 2000, 0, { disk: { freeMb: 1200, reserveMb: 1000 } })], app)).toEqual({
      node: null,
      reason: 'no_capacity',
      resource: 'disk',
      requested: 512,
      available: 200,
    });
  });

  it('spreads workspaces by free room: a server offering less memory gets fewer', () => {
    const nodes = [node('a', 1024, 0), node('b', 1024, 0), node('c', 768, 0)];
    const count: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 10; i++) {
      const placed = placeWorkspace(nodes, app);
      expect(placed.node).not.toBeNull();
      const n = placed.node!;
      count[n.name]! += 1;
      n.reservedMemoryMb += app.memoryMb;
    }
    expect(count).toEqual({ a: 4, b: 4, c: 2 });
  });
});
