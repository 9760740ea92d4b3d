import { randomBytes } from 'node:crypto';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor } from '@slipway/testing/worker';
import fc from 'fast-check';
import { disagreements, observe, quiet, type AppView } from '@slipway/testing/converge';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';

jest.setTimeout(600_000);

/** Seeded: SLIPWAY_STRESS_SEED replays a run; the seed is printed before the first sequence and on failure. */
const SEED = Number(process.env.SLIPWAY_STRESS_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env.SLIPWAY_STRESS_RUNS ?? 30);

type Command =
  | { kind: 'deploy'; image: 'v1' | 'v2'; delayMs: number }
  | { kind: 'rollback'; pick: number; delayMs: number }
  | { kind: 'start' | 'stop' | 'restart'; delayMs: number }
  | { kind: 'env'; value: string; delayMs: number };

const delay = fc.integer({ min: 0, max: 400 });
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('deploy' as const), image: fc.constantFrom('v1' as const, 'v2' as const), delayMs: delay }),
  fc.record({ kind: fc.constant('rollback' as const), pick: fc.nat(10), delayMs: delay }),
  fc.record({ kind: fc.constantFrom('start' as const, 'stop' as const, 'restart' as const), delayMs: delay }),
  fc.record({ kind: fc.constant('env' as const), value: fc.string({ unit: 'grapheme-ascii', maxLength: 8 }), delayMs: delay }),
);

type Answer = { accepted: boolean; generation?: number; state?: 'running' | 'stopped' };

/** Sends one command to the app at `app` (its path) after its delay; whether it was accepted as an intent, and which. */
async function sendCommand(p: TestPlatform, client: ApiClient, app: string, c: Command): Promise<Answer> {
  await new Promise((r) => setTimeout(r, c.delayMs));
  switch (c.kind) {
    case 'deploy':
      return { accepted: (await client.post(`${app}/deployments`, { image: p.images[c.image] })).status === 201 };
    case 'rollback': {
      const list = ((await client.get(`${app}/deployments?limit=10`)).body.data as { id: string; status: string; imageAvailable: boolean }[]).filter(
        (d) => d.imageAvailable && (d.status === 'live' || d.status === 'superseded'),
      );
      const target = list[c.pick % Math.max(1, list.length)];
      if (!target) return { accepted: false };
      return { accepted: (await client.post(`${app}/deployments/${target.id}/rollback`)).status === 201 };
    }
    case 'env': {
      // Not an intent on the app's state (it takes effect at the next deployment): no generation.
      const res = await client.put(`${app}/env`, { variables: [{ key: 'STRESS', value: c.value }] });
      if (res.status !== 200) throw new Error(`PUT env answered ${res.status}: ${JSON.stringify(res.body)}`);
      return { accepted: false };
    }
    default: {
      const res = await client.post(`${app}/${c.kind}`);
      if (res.status !== 200) return { accepted: false };
      return { accepted: true, generation: (res.body as AppView).generation, state: c.kind === 'stop' ? 'stopped' : 'running' };
    }
  }
}

/**
 * The state the model expects after a batch: the accepted answer that made the highest generation says it; when no
 * power answer made it, a deployment or a rollback did, and they run the app. Nothing accepted: as it was.
 */
function expectedAfter(previous: 'running' | 'stopped', accepted: Answer[], generation: number): 'running' | 'stopped' {
  if (accepted.length === 0) return previous;
  return accepted.find((a) => a.generation === generation)?.state ?? 'running';
}

// Issue 20: random sequences of intents on one app, sent with random overlaps, against the running platform (API,
// workers, agent, Docker, Caddy). Once the platform is quiet: desiredState is the last accepted intent's, status
// and containers agree with it, at most one container runs, and the route exists exactly when the app runs.
describe('stress: whatever the overlaps, the app converges to the intent accepted last', () => {
  let p: TestPlatform;
  let client: ApiClient;

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'converge-stress', readyTimeoutMs: 10_000, stopGraceMs: 1_000 });
    client = p.client();
    await signUp(client);
  });

  afterAll(async () => {
    await p?.close();
  });

  it(`${RUNS} random sequences of deploy, rollback, start, stop, restart and env changes`, async () => {
    console.log(`converge stress: seed ${SEED} (SLIPWAY_STRESS_SEED=${SEED} replays it), ${RUNS} sequences`);
    const ws = await createWorkspace(client);
    const apps = `/v1/workspaces/${ws.id}/apps`;
    const created = await client.post(apps, { name: `stress ${randomBytes(3).toString('hex')}`, kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128 });
    const appId = (created.body as AppView).id;
    const first = (await client.post(`${apps}/${appId}/deployments`, {})).body as { id: string };
    await waitFor(async () => (await client.get(`${apps}/${appId}/deployments/${first.id}`)).body.status === 'live', 60_000, 'the first deployment');
    await quiet(p, appId);
    let expected: 'running' | 'stopped' = 'running';
    let sequence = 0;

    const send = (c: Command) => sendCommand(p, client, `${apps}/${appId}`, c);

    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 3 }), async (commands) => {
        sequence++;
        const before = (await observe(p, client, ws.id, appId)).app.generation;
        const answers = await Promise.all(commands.map(send));
        const accepted = answers.filter((a) => a.accepted);
        await quiet(p, appId, { retireMs: 2_000 });
        const o = await observe(p, client, ws.id, appId);
        // Every accepted intent bumped the generation once; the one that made the highest generation says the state.
        expect({ sequence, generation: o.app.generation }).toEqual({ sequence, generation: before + accepted.length });
        expected = expectedAfter(expected, accepted, o.app.generation);
        expect({ sequence, commands, problems: disagreements(o, expected) }).toEqual({ sequence, commands, problems: [] });
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    console.log(`converge stress: ${RUNS} sequences in ${Math.round((Date.now() - started) / 1000)} s (seed ${SEED})`);
  });
});
