import { ENGINES, mongodb, mysql, postgres, redis, type EngineContext } from './engines';

const ctx: EngineContext = { username: 'app', databaseName: 'appdb', password: "Zq'a\"ss/w:rd@x", memoryMb: 512, cpuMillis: 500 };

describe('database engines', () => {
  it('size the engines\' own memory below the container limit', () => {
    expect(postgres.memory(512)).toMatchObject({ shared_buffers: '128MB', effective_cache_size: '256MB', max_connections: '64' });
    expect(mysql.memory(512)['innodb-buffer-pool-size']).toBe('204M');
    expect(mysql.memory(64)['innodb-buffer-pool-size']).toBe('32M');
    expect(redis.memory(512).maxmemory).toBe('384mb');
    expect(mongodb.memory(512).wiredTigerCacheSizeGB).toBe('0.25');
    expect(mongodb.memory(4096).wiredTigerCacheSizeGB).toBe('1.88');
  });

  it('never put the password on a command line', () => {
    for (const engine of Object.values(ENGINES)) {
      const argvs = [engine.command(ctx), engine.probe(ctx).cmd, ...engine.rotate(ctx, 'NEW-secret-password').map((e) => e.cmd)];
      for (const argv of argvs) expect(argv.join(' ')).not.toMatch(/Zq|NEW-secret/);
    }
  });

  it('escape the new password inside statements given on stdin', () => {
    expect(postgres.rotate(ctx, "it's")[0]!.stdin).toBe(`ALTER ROLE "app" PASSWORD 'it''s';\n`);
    expect(mysql.rotate(ctx, "a'b\\c")[0]!.stdin).toContain("IDENTIFIED BY 'a\\'b\\\\c'");
    expect(redis.files(ctx)['redis.conf']).toContain('requirepass "Zq\'a\\"ss/w:rd@x"');
  });

  it('initialise PostgreSQL without fsync file after file (the agent syncs the data folder in one pass), its time zone given', () => {
    expect(postgres.env(ctx).POSTGRES_INITDB_ARGS).toBe('--no-sync');
    // and without scanning the image's zone files for its time zone
    expect(postgres.env(ctx).TZ).toBe('Etc/UTC');
    expect(postgres.initWithoutSync).toBe(true);
    expect(Object.values(ENGINES).filter((e) => e.initWithoutSync).map((e) => e.name)).toEqual(['postgres']);
  });

  it('serve TLS: postgres and mysql with their own settings, redis on a TLS port of its own', () => {
    expect(postgres.command(ctx)).toEqual(expect.arrayContaining(['ssl=on', 'ssl_key_file=/slipway/tls/server.key']));
    expect(mysql.command(ctx)).toEqual(expect.arrayContaining(['--ssl-cert=/slipway/tls/server.crt']));
    expect(redis.files(ctx)['redis.conf']).toMatch(/^tls-port 6380$/m);
    expect(redis.publicTarget).toBe(6380);
  });
});
