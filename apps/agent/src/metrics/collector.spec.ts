import { workloadOf } from './collector';

describe('workloadOf (which workload a managed container measures for)', () => {
  it('measures apps and any managed database by their labels, never the layer helpers or unlabelled containers', () => {
    expect(workloadOf({ 'slipway.workspace': 'w1', 'slipway.app': 'a1', 'slipway.deployment': 'd1' })).toEqual({ kind: 'app', targetId: 'a1', workspaceId: 'w1' });
    // Managed databases (postgres, mysql, redis, mongodb alike): the label is enough, no code per engine.
    expect(workloadOf({ 'slipway.workspace': 'w1', 'slipway.database': 'db1' })).toEqual({ kind: 'database', targetId: 'db1', workspaceId: 'w1' });
    expect(workloadOf({ 'slipway.workspace': 'seed', 'slipway.app': 'a1' })).toBeNull();
    expect(workloadOf({ 'slipway.workspace': 'w1' })).toBeNull();
    expect(workloadOf({ 'slipway.app': 'a1' })).toBeNull();
  });
});
