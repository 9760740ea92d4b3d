// Property: no input gives a 5xx (issue 18). For every operation of the OpenAPI document, fast-check sends
// arbitrary bodies, path and query values, generated from the document's own schemas (mostly valid-looking values,
// salted with control characters, lone surrogates, invalid UTF-8, exotic numbers, wrong types and unknown fields),
// as the owner of a real workspace on a real agent, so requests reach the validators, the services, PostgreSQL
// and the agent. Every answer must be a documented success or the error envelope, never a 5xx; test-api checks
// every body against the document as well.
//
// Replay a failure with the seed it prints: SLIPWAY_PROPERTY_SEED=<seed> (SLIPWAY_PROPERTY_RUNS: runs per operation).
import { randomBytes, randomUUID } from 'node:crypto';
import { openTestCa, startTestAgent, type TestAgent } from '@slipway/testing/agent';
import { openApiDocument, OPERATIONS, pathParameters, type OperationId, type OperationSpec } from '@slipway/contracts';
import { AgentPool, BackupsPool, BuildsPool, databaseAgentOf, DatabasesPool, DomainsPool, FilesPool } from '@slipway/proto';
import { TEST_DATABASE_IMAGES } from '@slipway/testing/databases';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { insertNode } from '@slipway/testing/worker';
import fc from 'fast-check';
import { rm } from 'node:fs/promises';
import { startTestApi, type TestApi } from '@slipway/testing/api';
import { githubAppOf, GitRepo, startGithubDouble, type GithubDouble } from '@slipway/testing/github';

jest.setTimeout(60_000);

const SEED = Number(process.env.SLIPWAY_PROPERTY_SEED ?? randomBytes(4).readUInt32BE() >>> 1);
const RUNS = Number(process.env.SLIPWAY_PROPERTY_RUNS ?? 20);
/** SLIPWAY_PROPERTY_TALLY=1 prints the answers per operation (=details: with the error details), to see what is reached. */
const TALLY = process.env.SLIPWAY_PROPERTY_TALLY;

type Schema = Record<string, unknown>;
const doc = openApiDocument() as { paths: Record<string, Record<string, Schema>>; components: { schemas: Record<string, Schema> } };

// ------------------------------------------------------------------------------------------ hostile text

/** Text a careless server trips on: control characters, NUL, lone surrogates, huge or odd Unicode. */
const hostileString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('\u0000', 'a\u0000b', '\t', '\r\n', '\u001b[31m', '\u007f', '\ud800', 'x\udc00', '\udbff\udbff', '\ufffd', '\u2028', '', ' ', '%00', '../..', '\\'),
  fc.string({ unit: fc.constantFrom('\u0000', '\u0001', '\n', '\ud800', '\udfff', 'a', 'é', '🚀'), maxLength: 8 }),
  fc.constant('x'.repeat(5000)),
);

/** Numbers a query string may carry that JSON Schema coercion misreads: exponents, hex, signs, spaces, NaN. */
const exoticNumber = fc.constantFrom('1e309', '-1', '1.5', 'NaN', '0x10', 'Infinity', '-Infinity', '', ' 5', '+5', '1e2', '05', '9007199254740993', '-0', '0');

/** Percent-encodes the UTF-8 of `s` (lone surrogates become U+FFFD, as any client would send them). */
const pct = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9_~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

/** Bytes percent-encoded as they are, invalid UTF-8 included. */
const rawPct = fc.uint8Array({ minLength: 1, maxLength: 12 }).map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''));

// ------------------------------------------------------------------------------- values from the document

function resolve(s: Schema): Schema {
  for (let i = 0; typeof s.$ref === 'string' && i < 10; i++) s = doc.components.schemas[(s.$ref as string).split('/').pop()!]!;
  return s;
}

function validString(s: Schema): fc.Arbitrary<string> {
  const max = Math.min(Number(s.maxLength ?? 40), 40);
  const min = Number(s.minLength ?? 0);
  if (s.format === 'uuid') return fc.uuid();
  if (s.format === 'email') return fc.emailAddress();
  if (s.format === 'ipv4') return fc.ipV4();
  if (s.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  if (typeof s.pattern === 'string') {
    // fast-check cannot generate from lookaheads: generate from the pattern without them, keep what the whole matches.
    const pattern = new RegExp(s.pattern);
    const generator = new RegExp(s.pattern.replace(/\(\?[=!](?:[^()]|\([^()]*\))*\)/g, ''));
    return fc
      .stringMatching(generator)
      .filter((v) => pattern.test(v) && v.length >= min && v.length <= Number(s.maxLength ?? Infinity));
  }
  return fc.string({ minLength: min, maxLength: Math.max(min, max) });
}

/**
 * Arbitrary values for a schema. `valid`: what the schema accepts (as far as a generator can tell), to reach the
 * services. `fuzz`: valid-looking most of the time, hostile text, wrong types and unknown fields otherwise.
 */
function fromSchema(input: Schema, mode: 'valid' | 'fuzz', depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(input);
  const wrong = fc.oneof(hostileString, fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(null, true, -1, 1e308, 2 ** 53, 1.5, [], {}));
  const salt = (valid: fc.Arbitrary<unknown>, bad: fc.Arbitrary<unknown>) =>
    mode === 'valid' ? valid : fc.oneof({ weight: 5, arbitrary: valid }, { weight: 1, arbitrary: bad });
  if (Array.isArray(s.anyOf)) return fc.oneof(...(s.anyOf as Schema[]).map((x) => fromSchema(x, mode, depth + 1)));
  if (Array.isArray(s.enum)) return salt(fc.constantFrom(...(s.enum as unknown[])), wrong);
  const types = (Array.isArray(s.type) ? s.type : [s.type]) as string[];
  const valid: fc.Arbitrary<unknown>[] = [];
  for (const t of types) {
    if (t === 'string') valid.push(validString(s));
    if (t === 'integer') {
      const min = Number(s.minimum ?? -1_000_000);
      const max = Math.min(Number(s.maximum ?? 1_000_000), Number.MAX_SAFE_INTEGER);
      // Mostly small: sizes near the plan minimums fit the quota, so creates reach the services' success path.
      valid.push(fc.oneof(fc.integer({ min, max: Math.min(max, Math.max(min, 0) + 1024) }), fc.constantFrom(min, max), fc.integer({ min, max })));
    }
    if (t === 'number') valid.push(fc.double({ noNaN: true, noDefaultInfinity: true }));
    if (t === 'boolean') valid.push(fc.boolean());
    if (t === 'null') valid.push(fc.constant(null));
    if (t === 'array' && depth < 4) {
      valid.push(fc.array(fromSchema((s.items as Schema) ?? {}, mode, depth + 1), { maxLength: Math.min(Number(s.maxItems ?? 3), 3) }));
    }
    if (t === 'object' && depth < 4) valid.push(objectFrom(s, mode, depth));
  }
  if (!valid.length) return wrong;
  return salt(fc.oneof(...valid), types.includes('string') ? hostileString : wrong);
}

function objectFrom(s: Schema, mode: 'valid' | 'fuzz', depth: number): fc.Arbitrary<Record<string, unknown>> {
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const model = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, fromSchema(v, mode, depth + 1)]));
  const record = fc.record(model, { requiredKeys: ((s.required ?? []) as string[]).filter((k) => k in props) });
  if (mode === 'valid') return record;
  return fc.oneof(
    { weight: 6, arbitrary: record },
    { weight: 1, arbitrary: fc.tuple(record, fc.oneof(hostileString, fc.string()), fc.jsonValue({ maxDepth: 1 })).map(([r, k, v]) => ({ ...r, [k]: v })) },
  );
}

// --------------------------------------------------------------------------------------------- requests

interface Fixture {
  owner: ApiClient;
  /** Real ids by path parameter name. */
  ids: Record<string, string[]>;
}

interface Request {
  path: string;
  query: string;
  body?: { bytes: Buffer; contentType: string };
}

function requestArb(spec: OperationSpec, f: Fixture): fc.Arbitrary<Request> {
  const op = doc.paths[spec.path]![spec.method]!;
  // A deployment belongs to the image app: pair them, or every deployment path would mostly answer 404.
  const real = (name: string) => (name === 'appId' && spec.path.includes('{deploymentId}') ? f.ids.appId!.slice(0, 1) : (f.ids[name] ?? []));
  const segment = (name: string) =>
    fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...real(name)) },
      { weight: 1, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: hostileString.filter((v) => v !== '' && !/^\.+$/.test(v)).map(pct) },
      { weight: 1, arbitrary: rawPct },
    );
  const names = pathParameters(spec.path);
  const fill = (values: string[]) => values.reduce((p, v, i) => p.replace(`{${names[i]}}`, v), spec.path);
  const path = fc.oneof(
    { weight: 3, arbitrary: fc.tuple(...names.map((n) => fc.constantFrom(...real(n)))).map(fill) },
    { weight: 1, arbitrary: fc.tuple(...names.map(segment)).map(fill) },
  );

  const params = ((op.parameters ?? []) as Schema[]).filter((p) => p.in === 'query');
  const validQuery = (p: Schema) => {
    const schema = resolve(p.schema as Schema);
    // A long poll's `wait` holds the answer that long when no line comes (the fixture's deployment stays queued): its
    // range is the log-follow tests' to cover; here 0 or 1 s keeps the run inside its timeout.
    if (p.name === 'wait') return fc.constantFrom('0', '1');
    if (schema.type === 'integer') return fc.integer({ min: Number(schema.minimum), max: Number(schema.maximum) }).map(String);
    if (p.name === 'path') return fc.stringMatching(/^[a-z]{1,6}(\/[a-z]{1,6}){0,2}$/);
    if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as string[]));
    return fc.string({ maxLength: 20 });
  };
  const fuzzQuery = (p: Schema) =>
    fc.oneof({ weight: 3, arbitrary: validQuery(p).map(pct) }, { weight: 1, arbitrary: exoticNumber.map(pct) }, { weight: 1, arbitrary: hostileString.map(pct) }, { weight: 1, arbitrary: rawPct });
  const junk = fc.oneof(fc.constant('limit=1&limit=2'), fc.constant('path[]=a'), fc.constant('unknown=1'), fc.tuple(rawPct, rawPct).map(([k, v]) => `${k}=${v}`));
  const join = (parts: (string | undefined)[]) => parts.filter((x): x is string => x !== undefined).join('&');
  const query = fc.oneof(
    { weight: 2, arbitrary: fc.tuple(...params.map((p) => fc.option(validQuery(p).map((v) => `${p.name}=${pct(v)}`), { nil: undefined, freq: 2 }))).map(join) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: junk }), ...params.map((p) => fc.option(fuzzQuery(p).map((v) => `${pct(String(p.name))}=${v}`), { nil: undefined, freq: 3 })))
        .map(join),
    },
  );

  let body: fc.Arbitrary<Request['body']> = fc.constant(undefined);
  if (spec.body) {
    const schema = (op.requestBody as { content: Record<string, { schema: Schema }> }).content['application/json']!.schema;
    const json = (v: unknown) => ({ bytes: Buffer.from(JSON.stringify(v) ?? 'null'), contentType: 'application/json' });
    body = fc.oneof(
      { weight: 4, arbitrary: fromSchema(schema, 'valid').map(json) },
      { weight: 4, arbitrary: fromSchema(schema, 'fuzz').map(json) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map(json) },
      {
        weight: 1,
        arbitrary: fc.oneof(
          fc.uint8Array({ maxLength: 64 }).map((b) => ({ bytes: Buffer.from(b), contentType: 'application/json' })),
          // Valid JSON around invalid UTF-8.
          fc.uint8Array({ minLength: 1, maxLength: 8 }).map((b) => ({ bytes: Buffer.concat([Buffer.from('{"name":"'), Buffer.from(b), Buffer.from('"}')]), contentType: 'application/json' })),
        ),
      },
    );
  } else if (spec.rawBody) {
    const type = spec.rawBody.contentType;
    body = fc.record({
      bytes: fc.uint8Array({ maxLength: 2048 }).map((b) => Buffer.from(b)),
      contentType: fc.oneof({ weight: 5, arbitrary: fc.constant(type) }, { weight: 1, arbitrary: fc.constantFrom('application/json', 'text/plain') }),
    });
  }
  return fc.record({ path, query, body });
}

async function send(f: Fixture, spec: OperationSpec, r: Request) {
  const url = `${r.path}${r.query ? `?${r.query}` : ''}`;
  return f.owner.request(spec.method.toUpperCase(), url, r.body ? { raw: r.body.bytes, headers: { 'content-type': r.body.contentType } } : {});
}

// ------------------------------------------------------------------------------------------------- test

type Answer = Awaited<ReturnType<typeof send>>;

/**
 * The one 5xx a working platform gives on purpose: a database engine whose image is not on the server (the test
 * servers have no `mongo` image and no registry). Only where the operation documents it.
 */
const PLATFORM_LACKS = new Set(['engine_unavailable']);

/** Throws unless `res` is the operation's documented success or the error envelope: never a 5xx. */
function checkAnswer(spec: OperationSpec, res: Answer): void {
  const code: unknown = res.body?.error?.code;
  const documented = typeof code === 'string' && PLATFORM_LACKS.has(code) && !!spec.errors?.[res.status]?.includes(code);
  if (res.status >= 500 && !documented) throw new Error(`${res.status} ${res.text.slice(0, 300)}`);
  if (res.status >= 200 && res.status < 300) {
    expect(res.status).toBe(spec.success.status);
    return;
  }
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toEqual({ error: { code: expect.stringMatching(/^[a-z_]+$/), message: expect.any(String), ...(res.body?.error?.details ? { details: expect.any(Array) } : {}) } });
}

/** One line of SLIPWAY_PROPERTY_TALLY's count: the status and the code (with the details when it is `details`). */
function tallyLine(res: Answer): string {
  const details = TALLY === 'details' ? ` ${JSON.stringify(res.body?.error?.details ?? res.body?.error?.message ?? '')}` : '';
  return `${res.status} ${res.body?.error?.code ?? ''}${details}`;
}

/** Prints how many answers of each kind an operation got, when SLIPWAY_PROPERTY_TALLY asks for it. */
function printTally(operationId: string, tally: string[]): void {
  if (TALLY && tally.length) process.stdout.write(`${operationId}: ${JSON.stringify(Object.entries(tally.reduce<Record<string, number>>((a, k) => ({ ...a, [k]: (a[k] ?? 0) + 1 }), {})))}\n`);
}

describe('no input gives a 5xx (fast-check over every operation of the document)', () => {
  let api: TestApi;
  let agent: TestAgent;
  let agents: AgentPool;
  let caDir: string;
  // GitHub operations (issue 16) reach a GitHub API double, so they answer as they would with GitHub, not 503.
  let gh: GithubDouble;
  let repo: GitRepo;
  let repoId: number;

  beforeAll(async () => {
    const { ca, dir } = await openTestCa();
    caDir = dir;
    // Its DNS checks ask a resolver that refuses at once (a domain check answers "not verified" quickly).
    agent = await startTestAgent(ca, { nodeName: `node-${randomBytes(3).toString('hex')}`, databaseImages: TEST_DATABASE_IMAGES, domains: { resolvers: ['127.0.0.1:1'] } });
    agents = new AgentPool(ca.client);
    gh = await startGithubDouble();
    repo = await GitRepo.create();
    await repo.commit({ 'index.html': 'hi' }, 'first');
    repoId = gh.addRepository('acme/shop', repo).id;
    api = await startTestApi({
      // Room for every workspace the properties create (placement counts each workspace's first app).
      node: (db) => insertNode(db, agent, 'online', { cpuMillis: 64_000, memoryMb: 262_144 }),
      agents,
      files: new FilesPool(agents),
      builds: new BuildsPool(agents),
      databases: databaseAgentOf(new DatabasesPool(agents)),
      backups: new BackupsPool(agents),
      domains: new DomainsPool(agents),
      dataDir: caDir,
      github: await githubAppOf(gh),
    });
  });

  afterAll(async () => {
    await gh?.close();
    await repo?.remove();
    agents?.close();
    await agent?.stop();
    await rm(caDir, { recursive: true, force: true });
    await api?.close(); // fails when a response broke the document
  });

  let shared: { owner: ApiClient; me: Awaited<ReturnType<typeof signUp>> } | undefined;

  /**
   * A throwaway workspace per operation, its owner (one account for all, signing up costs an argon2 hash; logout gets
   * its own, as it ends the session), an image app with a queued deployment, an upload app and a token.
   */
  /** Public operations go out without credentials (a signup's cookie must not replace the shared owner's). */
  const fixtureFor = (spec: OperationSpec): Promise<Fixture> => (spec.auth === 'public' ? Promise.resolve({ owner: api.client(), ids: {} }) : fixture(spec.path === '/v1/auth/logout'));

  async function fixture(ownAccount: boolean): Promise<Fixture> {
    if (!shared || ownAccount) {
      const owner = api.client();
      const account = { owner, me: await signUp(owner) };
      if (ownAccount) return workspaceFixture(account.owner, account.me);
      shared = account;
    }
    return workspaceFixture(shared.owner, shared.me);
  }

  async function workspaceFixture(owner: ApiClient, me: Awaited<ReturnType<typeof signUp>>): Promise<Fixture> {
    const ws = await createWorkspace(owner);
    const image = await owner.post(`/v1/workspaces/${ws.id}/apps`, { name: 'img', kind: 'web', source: 'image', image: 'slipway-test/none:1', memoryMb: 128 });
    const upload = await owner.post(`/v1/workspaces/${ws.id}/apps`, { name: 'zip', kind: 'web', source: 'upload', memoryMb: 128 });
    const deployment = await owner.post(`/v1/workspaces/${ws.id}/apps/${image.body.id}/deployments`, {});
    const token = await owner.post(`/v1/workspaces/${ws.id}/tokens`, { name: 'ci' });
    for (const r of [image, upload, deployment, token]) if (r.status !== 201) throw new Error(`fixture: ${r.status} ${r.text}`);
    // A GitHub installation linked to the workspace through the state flow (one workspace per installation).
    const installation = gh.addInstallation(`org-${randomBytes(3).toString('hex')}`, [repoId]);
    const state = (await owner.get(`/v1/workspaces/${ws.id}/github/install-url`)).body.state as string;
    const linked = await owner.get(`/v1/github/setup?installation_id=${installation.id}&state=${encodeURIComponent(state)}`);
    if (linked.status !== 200) throw new Error(`fixture: ${linked.status} ${linked.text}`);
    // A custom domain of the image app (issue 14; its check job is recorded, never run: it stays pending).
    const domain = await owner.post(`/v1/workspaces/${ws.id}/apps/${image.body.id}/domains`, { hostname: `shop-${randomBytes(4).toString('hex')}.example.com` });
    if (domain.status !== 201) throw new Error(`fixture: ${domain.status} ${domain.text}`);
    // A database (its jobs are recorded, never run: it stays provisioning).
    const database = await owner.post(`/v1/workspaces/${ws.id}/databases`, { name: 'cache', engine: 'redis', memoryMb: 64 });
    for (const r of [image, upload, deployment, token, database]) if (r.status !== 201) throw new Error(`fixture: ${r.status} ${r.text}`);
    // A backup destination (issue 33): nothing listens at its endpoint, so its test call answers unreachable at once.
    const destination = await owner.post(`/v1/workspaces/${ws.id}/backup-destinations`, {
      name: 'offsite', endpoint: 'http://127.0.0.1:9', region: 'us-east-1', bucket: 'backups', pathStyle: true, accessKeyId: 'AKIAFUZZ', secretKey: 'fuzz-secret',
    });
    if (destination.status !== 201) throw new Error(`fixture: ${destination.status} ${destination.text}`);
    // A completed backup of it (issue 13), recorded as the backup jobs would (its file is not on the server).
    const backup = await api.db.databaseBackup.create({
      data: {
        id: randomUUID(),
        workspaceId: ws.id,
        databaseId: database.body.id,
        nodeId: api.node.id,
        sourceName: 'cache',
        engine: 'redis',
        version: database.body.version,
        cpuMillis: database.body.cpuMillis,
        memoryMb: 64,
        diskMb: database.body.diskMb,
        kind: 'manual',
        status: 'completed',
        sizeBytes: 100n,
        sha256: 'a'.repeat(64),
        path: `backups/${database.body.id}/x.rdb`,
        expiresAt: new Date(Date.now() + 86_400_000),
      },
    });
    return {
      owner,
      ids: {
        workspaceId: [ws.id],
        appId: [image.body.id, upload.body.id],
        deploymentId: [deployment.body.id],
        tokenId: [token.body.id],
        databaseId: [database.body.id],
        backupId: [backup.id],
        userId: [me.user.id],
        installationId: [String(installation.id)],
        domainId: [domain.body.id],
        destinationId: [destination.body.id],
      },
    };
  }

  const operations = (Object.entries(OPERATIONS) as [OperationId, OperationSpec][]).filter(([, spec]) => !spec.custom);

  it.each(operations)('%s answers the envelope or a documented success, never a 5xx', async (operationId, spec) => {
    const f = await fixtureFor(spec);
    const tally: string[] = [];
    const property = fc.asyncProperty(requestArb(spec, f), async (r) => {
      const res = await send(f, spec, r);
      tally.push(tallyLine(res));
      checkAnswer(spec, res);
      expect(api.violations.filter((v) => v.operationId === operationId).slice(0, 1)).toEqual([]);
    });
    await fc.assert(property, { numRuns: RUNS, seed: SEED, endOnFailure: false }).catch((err: Error) => {
      throw new Error(`${operationId}: ${err.message}\nReplay: SLIPWAY_PROPERTY_SEED=${SEED}`);
    });
    printTally(operationId, tally);
  });
});
