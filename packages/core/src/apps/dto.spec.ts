import { deepFreeze } from '../freeze';
import { AppAnswers, toApp } from './dto';
import type { AppWithDeployment } from './app.ports';

const DOMAIN = { domain: 'apps.example.test', scheme: 'https' as const };

/** An app row as the repositories answer it; only what the disk figure depends on varies. */
const row = (o: Partial<AppWithDeployment>): AppWithDeployment =>
  ({
    id: '0190f0e0-0000-7000-8000-000000000001',
    workspaceId: '0190f0e0-0000-7000-8000-000000000002',
    name: 'web',
    slug: 'web',
    kind: 'web',
    source: 'image',
    image: 'nginx',
    port: 8080,
    cpuMillis: 250,
    memoryMb: 128,
    diskMb: 512,
    subdomain: 'web-ws',
    github: null,
    buildCommand: null,
    startCommand: null,
    rootDirectory: null,
    desiredState: 'running',
    generation: 1,
    status: 'running',
    statusDetail: null,
    currentDeploymentId: null,
    currentDeployment: null,
    runningSince: null,
    folderUsedMb: null,
    folderMeasuredAt: null,
    createdAt: new Date('2026-11-26T00:00:00Z'),
    updatedAt: new Date('2026-11-26T00:00:00Z'),
    ...o,
  }) as AppWithDeployment;

describe('toApp: the disk figure comes from the row, with its age (issue 34)', () => {
  it.each([
    ['before the first deployment: nothing to measure, 0', row({}), { limitMb: 512, usedMb: 0, measuredAt: null }],
    ['deployed, no sample carried a figure yet: unknown', row({ currentDeploymentId: 'd1' }), { limitMb: 512, usedMb: null, measuredAt: null }],
    [
      'deployed and measured: the figure and the minute of its sample',
      row({ currentDeploymentId: 'd1', folderUsedMb: 37, folderMeasuredAt: new Date('2026-11-26T23:41:00Z') }),
      { limitMb: 512, usedMb: 37, measuredAt: '2026-11-26T23:41:00.000Z' },
    ],
    [
      'measured, then its deployment went (the figure stays with its age)',
      row({ folderUsedMb: 12, folderMeasuredAt: new Date('2026-11-26T22:00:00Z') }),
      { limitMb: 512, usedMb: 12, measuredAt: '2026-11-26T22:00:00.000Z' },
    ],
  ])('%s', (_case, app, disk) => {
    expect(toApp(app, DOMAIN).disk).toEqual(disk);
  });
});

describe('AppAnswers: the answer of a record kept in memory is made once', () => {
  it('answers a frozen record with one frozen answer, as toApp makes it', () => {
    const answers = new AppAnswers(DOMAIN);
    const kept = deepFreeze(row({ currentDeploymentId: 'd1', folderUsedMb: 37, folderMeasuredAt: new Date('2026-11-26T23:41:00Z') }));
    const first = answers.of(kept);
    expect(answers.of(kept)).toBe(first);
    expect(first).toEqual(toApp(kept, DOMAIN));
    expect([Object.isFrozen(first), Object.isFrozen(first.disk)]).toEqual([true, true]);
  });

  it('makes a new answer for a changed record (a new object), and a fresh one each time for a record not kept', () => {
    const answers = new AppAnswers(DOMAIN);
    const before = answers.of(deepFreeze(row({ name: 'web' })));
    const after = answers.of(deepFreeze(row({ name: 'renamed' })));
    expect([before.name, after.name]).toEqual(['web', 'renamed']);
    const loose = row({});
    const a = answers.of(loose);
    expect(answers.of(loose)).not.toBe(a);
    expect(Object.isFrozen(a)).toBe(false);
  });
});
