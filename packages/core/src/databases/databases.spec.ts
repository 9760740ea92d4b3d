import { checkCidr } from './cidr';
import { driftOf } from './database-converge.service';
import type { DatabaseRecord } from './database.ports';
import { databaseSlug } from './database.service';
import { connectionUrl, newDatabasePassword } from './engines';

describe('checkCidr', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['127.0.0.1', '127.0.0.1/32'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['::/0', '::/0'],
    ['2001:DB8::/32', '2001:db8::/32'],
    ['::1', '::1/128'],
    ['fe80:0:0:0:0:0:0:0/10', 'fe80::/10'],
    ['::ffff:10.0.0.0/120', '::ffff:a00:0/120'],
  ])('accepts %s as %s', (input, cidr) => expect(checkCidr(input)).toEqual({ ok: true, cidr }));

  it.each([
    ['10.0.0.0/33', 'prefix length of 33'],
    ['::/129', 'prefix length of 129'],
    ['10.0.0.1/8', 'host bits set; the range is 10.0.0.0/8'],
    ['2001:db8::1/32', 'host bits set; the range is 2001:db8::/32'],
    ['300.0.0.0/8', 'not an IPv4 or IPv6 address'],
    ['10.0.0.0/8/9', 'one / at most'],
    ['10.0.0.0/x', 'not a number'],
  ])('refuses %s (%s)', (input, message) => {
    expect(checkCidr(input)).toEqual({ ok: false, message: expect.stringContaining(message) });
  });
});

describe('connectionUrl', () => {
  const parts = { host: 'orders.internal', port: 5432, username: 'sl@ve:r', password: 'p/a%ss@w:rd?#', databaseName: 'my db' };

  it('percent-encodes every part, so a URL parser gets them back', () => {
    const url = new URL(connectionUrl({ engine: 'postgres', ...parts }));
    expect(decodeURIComponent(url.username)).toBe(parts.username);
    expect(decodeURIComponent(url.password)).toBe(parts.password);
    expect(url.hostname).toBe('orders.internal');
    expect(decodeURIComponent(url.pathname.slice(1))).toBe('my db');
    expect(url.protocol).toBe('postgresql:');
  });

  it('says TLS in the public URL of each engine', () => {
    expect(connectionUrl({ engine: 'postgres', ...parts, host: '203.0.113.7', port: 20001 }, true)).toMatch(/^postgresql:\/\/.*@203\.0\.113\.7:20001\/my%20db\?sslmode=verify-full$/);
    expect(connectionUrl({ engine: 'mysql', ...parts }, true)).toMatch(/\?ssl-mode=VERIFY_IDENTITY$/);
    expect(connectionUrl({ engine: 'redis', ...parts, databaseName: '0' }, true)).toMatch(/^rediss:\/\//);
    expect(connectionUrl({ engine: 'mongodb', ...parts }, true)).toMatch(/\?authSource=admin&tls=true$/);
    expect(connectionUrl({ engine: 'mongodb', ...parts })).toMatch(/\?authSource=admin$/);
  });

  it('brackets an IPv6 host', () => {
    expect(connectionUrl({ engine: 'redis', ...parts, host: '2001:db8::1' }, true)).toContain('@[2001:db8::1]:5432/');
  });
});

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
  it('reopens a public port', () => expect(driftOf(db({ publicEnabled: true, publicPort: 20001 }), held({}))).toContain('public port'));
});
