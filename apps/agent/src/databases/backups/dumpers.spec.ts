import { ExecDemux } from '../../containers/exec-stream';
import { checkDump } from './backups.runtime';
import { mysqlDumper, postgresDumper, redisDumper } from './dumpers';

const ctx = { username: 'app', databaseName: 'appdb', password: 's3cret-password-xyz' };

describe('backup dumpers', () => {
  it('keep passwords out of argv', () => {
    for (const d of [postgresDumper, mysqlDumper, redisDumper]) expect(d.dump(ctx).cmd.join(' ')).not.toContain(ctx.password);
    expect(postgresDumper.dump(ctx).env).toEqual({ PGPASSWORD: ctx.password });
    expect(mysqlDumper.dump(ctx).env).toEqual({ MYSQL_PWD: ctx.password });
  });

  it('dump one MySQL database without --databases (no USE, no CREATE DATABASE), with routines, triggers, events', () => {
    const argv = mysqlDumper.dump(ctx).cmd;
    expect(argv).not.toContain('--databases');
    expect(argv).toEqual(expect.arrayContaining(['--single-transaction', '--routines', '--triggers', '--events']));
    expect(argv[argv.length - 1]).toBe('appdb');
  });

  it('dump PostgreSQL in the custom format', () => {
    expect(postgresDumper.dump(ctx).cmd).toEqual(expect.arrayContaining(['pg_dump', '--format=custom']));
  });
});

describe('checkDump', () => {
  it('refuses empty, cut and foreign files', () => {
    expect(checkDump('postgres', Buffer.alloc(0), Buffer.alloc(0), 0)).toMatch(/nothing/);
    expect(checkDump('postgres', Buffer.from('PGDMP....'), Buffer.from('x'), 9)).toBeNull();
    expect(checkDump('postgres', Buffer.from('hello'), Buffer.from('x'), 5)).toMatch(/pg_dump/);
    const head = Buffer.from('/*M!999999\\- enable the sandbox mode */\n-- MariaDB dump 10.19\n');
    expect(checkDump('mysql', head, Buffer.from('\n-- Dump completed on 2030-01-01\n'), 100)).toBeNull();
    expect(checkDump('mysql', head, Buffer.from('INSERT INTO t VALUES (1'), 100)).toMatch(/cut/);
    const rdbTail = Buffer.concat([Buffer.from([1, 2, 0xff]), Buffer.alloc(8, 7)]);
    expect(checkDump('redis', Buffer.from('REDIS0010xyz'), rdbTail, 100)).toBeNull();
    expect(checkDump('redis', Buffer.from('REDIS0010xyz'), Buffer.from('0123456789abcdef'), 100)).toMatch(/end-of-file/);
  });
});

describe('ExecDemux', () => {
  it('passes stdout on and keeps stderr, across frame and chunk boundaries', async () => {
    const frame = (stream: number, text: string) => {
      const body = Buffer.from(text);
      const h = Buffer.alloc(8);
      h[0] = stream;
      h.writeUInt32BE(body.length, 4);
      return Buffer.concat([h, body]);
    };
    const all = Buffer.concat([frame(1, 'hello '), frame(2, 'warning'), frame(1, 'world')]);
    const d = new ExecDemux();
    const out: Buffer[] = [];
    d.on('data', (b: Buffer) => out.push(b));
    // Fed three bytes at a time: headers split too.
    for (let i = 0; i < all.length; i += 3) d.write(all.subarray(i, i + 3));
    d.end();
    await new Promise((r) => d.on('end', r));
    expect(Buffer.concat(out).toString()).toBe('hello world');
    expect(d.stderr).toBe('warning');
    expect(d.bytes).toBe(11);
  });
});
