import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@slipway/testing';
import { Pool } from 'pg';
import { PgResourceLocks } from './resource-locks';

// Two worker processes, as two pools: one holder per app; a holder that dies (its connection closed) frees the app.
describe('PgResourceLocks (real PostgreSQL)', () => {
  let database: TestDatabase;
  const pools: Pool[] = [];
  const pool = () => {
    const p = new Pool({ connectionString: database.url, max: 4 });
    p.on('error', () => undefined);
    pools.push(p);
    return p;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
    await database?.drop();
  });

  it('runs the work on one app one at a time across processes, and other apps at once', async () => {
    const a = new PgResourceLocks(pool());
    const b = new PgResourceLocks(pool(), 10_000);
    const app = randomUUID();
    const order: string[] = [];
    let release!: () => void;
    const first = a.hold('app', app, async () => {
      order.push('a in');
      await new Promise<void>((r) => (release = r));
      order.push('a out');
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(await b.tryHold('app', app, async () => 'b')).toBeNull();
    expect(await b.tryHold('app', randomUUID(), async () => 'other app')).toEqual({ value: 'other app' });
    const second = b.hold('app', app, async () => void order.push('b'));
    await new Promise((r) => setTimeout(r, 300));
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['a in', 'a out', 'b']);
  });

  it('gives each kind its own key space: a database and an app of the same id do not wait for each other', async () => {
    const a = new PgResourceLocks(pool());
    const b = new PgResourceLocks(pool());
    const id = randomUUID();
    let release!: () => void;
    const held = a.hold('app', id, () => new Promise<void>((r) => (release = r)));
    await new Promise((r) => setTimeout(r, 200));
    expect(await b.tryHold('app', id, async () => 'app')).toBeNull();
    expect(await b.tryHold('database', id, async () => 'database')).toEqual({ value: 'database' });
    release();
    await held;
  });

  it('a holder whose connection dies (a killed worker) frees the app at once', async () => {
    const dying = pool();
    const a = new PgResourceLocks(dying);
    const b = new PgResourceLocks(pool());
    const app = randomUUID();
    const held = a.hold('app', app, () => new Promise((r) => setTimeout(r, 1_500)));
    await new Promise((r) => setTimeout(r, 200));
    expect(await b.tryHold('app', app, async () => 1)).toBeNull();
    // What PostgreSQL sees of a SIGKILLed worker: its connections close.
    const admin = pool();
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND pid <> pg_backend_pid()`);
    await new Promise((r) => setTimeout(r, 200));
    expect(await b.tryHold('app', app, async () => 'taken over')).toEqual({ value: 'taken over' });
    // The dead holder's work ends without an unhandled error; its broken client is dropped, not reused.
    await held;
  });

  it('holdAll takes many locks on one connection, all or none, waiting while one of them is held elsewhere', async () => {
    // One connection only: a move of a workspace with many apps must not need one per lock.
    const single = new Pool({ connectionString: database.url, max: 1 });
    single.on('error', () => undefined);
    pools.push(single);
    const mover = new PgResourceLocks(single, 10_000);
    const other = new PgResourceLocks(pool());
    const apps = [randomUUID(), randomUUID(), randomUUID()];
    const db = randomUUID();
    const keys = [...apps.map((id) => ['app', id] as const), ['database', db] as const];
    let release!: () => void;
    const busy = other.hold('database', db, () => new Promise<void>((r) => (release = r)));
    await new Promise((r) => setTimeout(r, 200));
    let ran = false;
    const moving = mover.holdAll(keys, async () => {
      ran = true;
      // Every lock is held meanwhile.
      return Promise.all(keys.map(([kind, id]) => other.tryHold(kind, id, async () => 'free')));
    });
    await new Promise((r) => setTimeout(r, 400));
    // Waiting for the database's lock, it holds none of the apps'.
    expect(ran).toBe(false);
    expect(await other.tryHold('app', apps[0]!, async () => 'free')).toEqual({ value: 'free' });
    release();
    await busy;
    expect(await moving).toEqual([null, null, null, null]);
    // All released afterwards.
    expect(await other.tryHold('database', db, async () => 'free')).toEqual({ value: 'free' });
    // A failing work lets go of every lock and its error comes through.
    await expect(mover.holdAll(keys, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await other.tryHold('app', apps[2]!, async () => 'free')).toEqual({ value: 'free' });
  });
});
