import type { ManagedContainer } from '../ports/agents';
import { claimedWorkspaceIds, findOrphans } from './orphans';

const c = (id: string, labels: Record<string, string>): ManagedContainer => ({ id, name: id, image: 'x', state: 'running', labels, createdAtMs: 0 });
const live = '0190f0a0-0000-7000-8000-000000000001';
const gone = '0190f0a0-0000-7000-8000-000000000002';

describe('orphans', () => {
  const containers = [
    c('a', { 'slipway.workspace': live, 'slipway.app': 'x' }),
    c('b', { 'slipway.workspace': gone }),
    c('c', { 'slipway.workspace': 'not-a-uuid' }),
    c('d', { 'slipway.app': 'no-workspace-label' }),
    c('e', { 'slipway.workspace': gone.toUpperCase() }),
  ];

  it('asks only about well-formed workspace ids, once each', () => {
    expect(claimedWorkspaceIds(containers).sort()).toEqual([live, gone, gone.toUpperCase()].sort());
  });

  it('picks containers whose workspace row is gone and leaves what it cannot judge', () => {
    expect(findOrphans(containers, new Set([live])).map((x) => x.id)).toEqual(['b', 'e']);
    expect(findOrphans(containers, new Set([live, gone]))).toEqual([]);
  });
});
