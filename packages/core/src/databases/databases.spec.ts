import { driftOf } from './database-converge.service';
import type { DatabaseRecord } from './database.ports';
import { databaseSlug } from './database.service';
import { newDatabasePassword } from './engines';

describe('passwords and slugs', () => {
  it('makes URL-safe passwords of at least 32 characters, each new', () => {
    const a = newDatabasePassword();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newDatabasePassword()).not.toBe(a);
  });

  it('makes a DNS label of the name', () => {
    expect(databaseSlug('Main Postgres!')).toBe('main-postgres');
    expect(databaseSlug('***')).toBe('db');
    expect(databaseSlug('x'.repeat(80)).length).toBeLessThanOrEqual(30);
  });
});

describe('driftOf', () => {
  const db = (o: Partial<DatabaseRecord>): DatabaseRecord =>
    ({ id: 'd', desiredState: 'running', status: 'running', publicEnabled: false, publicPort: null, ...o }) as DatabaseRecord;
  const held = (o: object) => ({ databaseId: 'd', workspaceId: 'w', containerId: 'c', state: 'running', hasData: true, publicPort: 0, cpuMillis: 0, memoryMb: 0, ...o });

  it('matches a running database with its running container', () => expect(driftOf(db({}), held({}))).toBeNull());
  it('sees a container removed by hand', () => expect(driftOf(db({}), undefined)).toContain('gone'));
  it('sees a container removed by hand while stopped (recreated stopped)', () => expect(driftOf(db({ desiredState: 'stopped', status: 'stopped' }), held({ state: 'missing', containerId: '' }))).toContain('gone'));
  it('leaves a stopped database stopped', () => expect(driftOf(db({ desiredState: 'stopped', status: 'stopped' }), held({ state: 'stopped' }))).toBeNull());
  it('starts a database meant to run', () => expect(driftOf(db({}), held({ state: 'stopped' }))).toContain('should run'));
  it('stops a database meant to be stopped', () => expect(driftOf(db({ desiredState: 'stopped', status: 'stopped' }), held({}))).toContain('should be stopped'));
  it('corrects a status the server contradicts', () => expect(driftOf(db({ status: 'failed' }), held({}))).toContain('recorded failed'));
  it('leaves a restoring database to its restore job (run again after its worker died)', () => expect(driftOf(db({ status: 'restoring' }), held({}))).toBeNull());
  it('reopens a public port', () => expect(driftOf(db({ publicEnabled: true, publicPort: 20001 }), held({}))).toContain('public port'));
});
