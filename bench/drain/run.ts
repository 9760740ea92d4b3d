// Drain benchmark (issue 32) on servers of @slipway/testing/fleet: a workspace of --apps web apps (the small Node test
// server, each deployed twice so a rollback image moves too, each with a project file) is moved from fleet-1 to fleet-2
// with `slipway-admin workspaces move` while a load generator hits every app's URL through fleet-1's ingress (every
// --every ms per app). Figures: the move's duration (goal ≤ 2 min for 10 apps), each app's failed-request window (goal
// ≤ 2 s), and as a baseline from the same run the time one deployment of one app takes on the same fleet. The workspace
// also holds a PostgreSQL filled with --db-mb MB of rows, written to every --every ms during the move: its write gap
// (goal ≤ 15 s for 1 GB) is measured, and when --db-mb is below 1024 scaled to 1 GB as an upper bound (the final copy
// scaled whole; the stop and the start do not grow with the data), printed as an extrapolation. The database is
// pre-copied while it runs and stopped only for the final block delta (docs/decisions/0037).
// Usage: npx tsx bench/drain/run.ts [--apps 10] [--every 100] [--db-mb 256]
import { randomBytes } from 'node:crypto';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { queryInContainer } from '@slipway/testing/databases';
import { startTestFleet, type FleetServer, type TestFleet } from '@slipway/testing/fleet';
import { waitFor } from '@slipway/testing/worker';
import globalSetup from '../../testing/src/global-setup';
import { exitOnFailures, verdict } from '../lib/verdict';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const APPS = arg('apps', 10);
const EVERY_MS = arg('every', 100);
const DB_MB = arg('db-mb', 256);

const live = (client: ApiClient, path: string) => waitFor(async () => ((await client.get(path)).body.status === 'live' ? true : null), 180_000, `${path} live`);

/** Requests to one app through a server's ingress until stopped: total, failed, and the window between the first and last failure. */
function hit(server: FleetServer, url: string) {
  const f = { total: 0, failed: 0, first: 0, last: 0 };
  let running = true;
  const loop = (async () => {
    while (running) {
      const at = Date.now();
      const r = await server.viaIngress(url).catch(() => null);
      f.total++;
      if (r?.status !== 200) {
        f.failed++;
        f.first ||= at;
        f.last = at;
      }
      await new Promise((res) => setTimeout(res, EVERY_MS));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return { total: f.total, failed: f.failed, windowMs: f.failed ? f.last - f.first + EVERY_MS : 0 };
  };
}

/** Numbered rows into the database on whichever server runs it, until stopped: rows written, longest gap between two. */
function write(servers: FleetServer[], databaseId: string, conn: { username: string; password: string; databaseName: string }) {
  const f = { written: 0, gapMs: 0, lastOk: Date.now() };
  let running = true;
  const loop = (async () => {
    while (running) {
      let ok = false;
      for (const server of servers) {
        ok = await queryInContainer(server.docker, databaseId, 'postgres', conn, `INSERT INTO moved (n) VALUES (${f.written + 1})`).then(() => true, () => false);
        if (ok) break;
      }
      if (ok) {
        f.written++;
        f.gapMs = Math.max(f.gapMs, Date.now() - f.lastOk);
        f.lastOk = Date.now();
      }
      await new Promise((res) => setTimeout(res, EVERY_MS));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return { written: f.written, gapMs: f.gapMs };
  };
}

async function main() {
  await globalSetup();
  const fleet: TestFleet = await startTestFleet({ servers: [{ memoryMb: 8192, cpus: 4 }, { memoryMb: 8192, cpus: 4 }], name: 'bench-drain', images: ['slipway/postgres:15'] });
  let failed = 0;
  try {
    const client = fleet.client();
    await signUp(client);
    const [a, b] = fleet.servers as [FleetServer, FleetServer];
    await fleet.admin('nodes', 'cordon', b.name);
    const ws = await createWorkspace(client);
    await fleet.admin('nodes', 'uncordon', b.name);
    // The business plan: 10 apps and a database need more than the trial's 1 GB of memory and 2 GB of disk.
    const business = await fleet.db.plan.findFirstOrThrow({ where: { slug: 'business' }, orderBy: { version: 'desc' } });
    await fleet.db.workspace.update({ where: { id: ws.id }, data: { planId: business.id } });
    const base = `/v1/workspaces/${ws.id}/apps`;

    // Baseline: one deployment of one app, from the request to live.
    const t0 = performance.now();
    const apps: { id: string; url: string }[] = [];
    const first = (await client.post(base, { name: `app 0 ${randomBytes(2).toString('hex')}`, kind: 'web', source: 'image', image: fleet.images.v1, memoryMb: 128 })).body;
    await live(client, `${base}/${first.id}/deployments/${(await client.post(`${base}/${first.id}/deployments`, {})).body.id}`);
    const baselineMs = performance.now() - t0;
    apps.push({ id: first.id, url: first.url });
    for (let i = 1; i < APPS; i++) {
      const app = (await client.post(base, { name: `app ${i} ${randomBytes(2).toString('hex')}`, kind: 'web', source: 'image', image: fleet.images.v1, memoryMb: 128 })).body;
      await live(client, `${base}/${app.id}/deployments/${(await client.post(`${base}/${app.id}/deployments`, {})).body.id}`);
      apps.push({ id: app.id, url: app.url });
    }
    for (const app of apps) {
      await live(client, `${base}/${app.id}/deployments/${(await client.post(`${base}/${app.id}/deployments`, { image: fleet.images.v2 })).body.id}`);
      await client.request('PUT', `${base}/${app.id}/files/content?path=kept.txt`, { raw: randomBytes(1 << 20).toString('hex'), headers: { 'content-type': 'application/octet-stream' } });
    }

    // The PostgreSQL: DB_MB MB of rows (~1 kB each: 31 MD5s of random numbers, hex text that compresses about 2×
    // like real data does, not one repeated MD5 that compresses 55×), and the table the writer fills during the move.
    const dbBase = `/v1/workspaces/${ws.id}/databases`;
    const db = (await client.post(dbBase, { name: 'main', engine: 'postgres', memoryMb: 512 })).body;
    await waitFor(async () => ((await client.get(`${dbBase}/${db.id}`)).body.status === 'running' ? true : null), 300_000, 'the database running');
    const conn = (await client.get(`${dbBase}/${db.id}/connection`)).body;
    await queryInContainer(a.docker, db.id, 'postgres', conn, 'CREATE TABLE moved (n integer PRIMARY KEY); CREATE TABLE filler (id integer, pad text)');
    for (let done = 0; done < DB_MB; done += 64) {
      const rows = Math.min(64, DB_MB - done) * 1000;
      await queryInContainer(a.docker, db.id, 'postgres', conn, `INSERT INTO filler SELECT g, (SELECT string_agg(md5(random()::text || g || i), '') FROM generate_series(1, 31) i) FROM generate_series(1, ${rows}) g`);
    }
    const sizeMb = Number(await queryInContainer(a.docker, db.id, 'postgres', conn, 'SELECT pg_database_size(current_database()) / 1048576')) || 0;

    const stops = apps.map((app) => hit(a, app.url));
    const writer = write([a, b], db.id, conn);
    const t1 = performance.now();
    const asked = Date.now();
    const r = await fleet.admin('workspaces', 'move', ws.slug, '--to', b.name, '--json');
    const moveId = (JSON.parse(r.stdout) as { id: string }).id;
    const move = await waitFor(
      async () => {
        const m = await fleet.db.move.findUnique({ where: { id: moveId } });
        return m && ['succeeded', 'failed', 'cancelled'].includes(m.state) ? m : null;
      },
      600_000,
      'the move',
    );
    const moveMs = performance.now() - t1;
    // Requests after the move must all succeed: a failure in these 3 s is not the switch's window, it is a failure.
    const after = apps.map((app) => hit(b, app.url));
    await new Promise((res) => setTimeout(res, 3_000));
    const figures = await Promise.all(stops.map((s) => s()));
    const tail = await Promise.all(after.map((s) => s()));
    const writes = await writer();
    const rowsOnB = move.state === 'succeeded' ? Number(await queryInContainer(b.docker, db.id, 'postgres', conn, 'SELECT count(*) FROM moved').catch(() => '-1')) : -1;
    const tailFailed = tail.reduce((n, f) => n + f.failed, 0);
    const lostRows = writes.written - rowsOnB;
    // A move that failed, requests failing after it, or rows lost: no target is met, whatever the figures.
    failed += (move.state === 'succeeded' ? 0 : 1) + tailFailed + Math.max(0, lostRows);
    const worst = Math.max(...figures.map((f) => f.windowMs));
    // The database's copy from the move-databases step's sentence ("main (postgres, pre-copied while it ran: 2197.8 MB
    // (812.3 MB sent) and 2 passes of its changes (40.0 MB, 2.0 MB sent) in 60.1 s; stop 1.7 s, final copy 3.1 MB of
    // changes sent 1.2 s, ready 1.8 s)").
    const dbStep = (move.steps as { step: string; sentence: string }[]).find((st) => st.step === 'move-databases')?.sentence ?? '';
    const m =
      /\(postgres, pre-copied while it ran: ([\d.]+) MB \(([\d.]+) MB sent\)(?: and \d+ pass(?:es)? of its changes \(([^)]*)\))? in ([\d.]+) s; stop ([\d.]+) s, final copy ([\d.]+) MB(?: of changes)? sent ([\d.]+) s, ready ([\d.]+) s\)/.exec(
        dbStep,
      );
    const [preMb, preSentMb, preS, stopS, finalMb, finalS, readyS] = m ? ([m[1], m[2], m[4], m[5], m[6], m[7], m[8]].map(Number) as [number, number, number, number, number, number, number]) : [0, 0, 0, 0, 0, 0, 0];
    const passes = m?.[3] ?? '';
    // Below 1 GB, an upper bound for 1 GB: the final copy reads and hashes the whole folder on the source (that part
    // grows with the data; the changes it sends grow with the writes during the stop, not with the data), so it is scaled
    // whole by the database's size; stop and start do not grow with it.
    const extrapolatedGapMs = sizeMb > 0 && m ? writes.gapMs - finalS * 1000 + finalS * 1000 * Math.max(1, 1024 / sizeMb) : NaN;
    console.log(`\n## A workspace of ${APPS} web apps (2 releases and a 2 MB project file each) and a PostgreSQL of ${sizeMb} MB moved ${a.name} → ${b.name} under load (${EVERY_MS} ms per app through ${a.name}'s ingress, a row every ${EVERY_MS} ms)\n`);
    console.log(`| figure | value | goal |\n|---|---|---|`);
    console.log(`| baseline: one deployment of one app | ${(baselineMs / 1000).toFixed(1)} s | |`);
    console.log(`| the move (${move.state}) | ${(moveMs / 1000).toFixed(1)} s | ≤ 120 s for 10 apps |`);
    console.log(`| worst failed-request window of an app | ${worst} ms | ≤ 2000 ms |`);
    console.log(`| failed requests / requests | ${figures.reduce((n, f) => n + f.failed, 0)} / ${figures.reduce((n, f) => n + f.total, 0)} | |`);
    console.log(`| failed requests after the move (3 s through ${b.name}) | ${tailFailed} / ${tail.reduce((n, f) => n + f.total, 0)} | 0 |`);
    console.log(`| rows written during the move / found on ${b.name} | ${writes.written} / ${rowsOnB} | none lost |`);
    console.log(
      `| database pre-copy while it ran (${preMb} MB of data folder, ${preSentMb} MB sent compressed${passes ? `, then passes of its changes: ${passes}` : ''}) | ${preS} s (${preS > 0 ? (preMb / preS).toFixed(0) : '?'} MB/s of folder) | |`,
    );
    console.log(`| database write gap, measured (stop ${stopS} s, final copy ${finalMb} MB of changes sent ${finalS} s, ready ${readyS} s) | ${(writes.gapMs / 1000).toFixed(1)} s | ≤ 15 s for 1 GB |`);
    if (DB_MB < 1024) {
      console.log(`| database write gap scaled to 1 GB (an upper bound: the final copy scaled by 1024/${sizeMb}; an extrapolation, not a measurement) | ${(extrapolatedGapMs / 1000).toFixed(1)} s | ≤ 15 s |`);
    }
    // Where the move's time went: the command itself (slipway-admin's start), the queue, then each step from the end of
    // the one before (a step whose work began ahead, beside earlier ones, shows only its wait for it here: its own
    // sentence says how long that work took).
    const at = (d: Date | null) => (d ? d.getTime() : NaN);
    const s1 = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    console.log(
      `\nthe move's ${s1(moveMs)}: the command until the move was recorded ${s1(at(move.createdAt) - asked)}, queued ${s1(at(move.startedAt) - at(move.createdAt))}, ` +
        `its steps ${s1(at(move.finishedAt) - at(move.startedAt))}, its end seen ${s1(asked + moveMs - at(move.finishedAt))} later`,
    );
    let previous = at(move.startedAt);
    for (const s of move.steps as { step: string; outcome: string; sentence: string; at: string }[]) {
      console.log(`  ${s.at} +${s1(Date.parse(s.at) - previous)} ${s.step} ${s.outcome}: ${s.sentence}`);
      previous = Date.parse(s.at);
    }
    console.log(
      `\nmove ≤ 2 min: ${verdict(moveMs <= 120_000, failed)}; window ≤ 2 s: ${verdict(worst <= 2_000, failed)}; ` +
        `write gap ≤ 15 s: ${DB_MB >= 1024 ? verdict(writes.gapMs <= 15_000, failed) : `${verdict(extrapolatedGapMs <= 15_000, failed)} (extrapolated from a ${sizeMb} MB database)`}`,
    );
  } finally {
    await fleet.close();
  }
  exitOnFailures(failed);
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
