import { connectionUrl, DATABASE_ENGINE_FACTS, DATABASE_ENGINES } from './databases';

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

describe('engine facts', () => {
  it('has every engine, its default version first, and the accounts the platform makes', () => {
    expect(Object.keys(DATABASE_ENGINE_FACTS)).toEqual([...DATABASE_ENGINES]);
    expect(DATABASE_ENGINE_FACTS.redis).toMatchObject({ username: 'default', databaseName: '0', port: 6379 });
    expect(DATABASE_ENGINE_FACTS.postgres.versions[0]).toBe('15');
  });
});
