import { openApiDocument } from './document';
import { TEXT_KEYWORD } from './text';
import { OPERATIONS, type OperationId } from './api';
import { createValidators } from './validation';

describe('validators compiled from the document', () => {
  const v = createValidators();

  it('list each failing field as a JSON pointer, unknown fields included', () => {
    expect(v.signup.body({ email: 'not-an-email', password: 'short', name: 'A', admin: true })).toEqual(
      expect.arrayContaining([
        { field: '/admin', message: 'is not allowed' },
        { field: '/email', message: 'must match format "email"' },
        { field: '/password', message: 'must NOT have fewer than 10 characters' },
      ]),
    );
    expect(v.login.body({})).toEqual([
      { field: '/email', message: 'is required' },
      { field: '/password', message: 'is required' },
    ]);
    expect(v.createWorkspace.body(undefined)).toEqual([{ field: '', message: 'must be object' }]);
  });

  it('explain patterns in words', () => {
    expect(v.createWorkspace.body({ name: '   ' })).toEqual([{ field: '/name', message: 'must be 1 to 64 characters, not only spaces' }]);
  });

  it('accept valid bodies', () => {
    expect(v.signup.body({ email: 'a@b.test', password: '0123456789', name: 'A' })).toBeNull();
    expect(v.updateWorkspace.body({})).toBeNull();
    expect(v.createToken.body({ name: 'ci', expiresInDays: 30 })).toBeNull();
  });

  it('check path ids and responses, including undocumented statuses and codes', () => {
    expect(v.getWorkspace.param('not-a-uuid')).not.toBeNull();
    expect(v.getWorkspace.param('01936f3e-8a2b-7c4d-9e0f-123456789abc')).toBeNull();
    expect(v.getWorkspace.response(404, { error: { code: 'not_found', message: 'x' } })).toBeNull();
    expect(v.getWorkspace.response(404, { error: { code: 'forbidden', message: 'x' } })).not.toBeNull();
    expect(v.getWorkspace.response(418, {})).toEqual([{ field: '', message: 'status 418 is not documented' }]);
  });

  it('refuse control characters and lone surrogates in single-line strings, naming the field', () => {
    const control = 'must not contain control characters (U+0000–U+001F, U+007F)';
    for (const name of ['a\u0000b', 'a\tb', 'line\nbreak', 'del\u007f', 'esc\u001b[0m']) {
      expect(v.createWorkspace.body({ name })).toEqual([{ field: '/name', message: control }]);
    }
    expect(v.createToken.body({ name: 'a\ud800' })).toEqual([{ field: '/name', message: expect.stringMatching(/lone surrogate/) }]);
    expect(v.createToken.body({ name: 'a\udc00b' })).toEqual([{ field: '/name', message: expect.stringMatching(/lone surrogate/) }]);
    expect(v.createWorkspace.body({ name: 'emoji 🚀 ünïcödé' })).toBeNull(); // a surrogate pair is fine
    expect(v.updateApp.body({ name: 'x\u0000' })).toEqual([{ field: '/name', message: control }]);
    expect(v.signup.body({ email: 'a@b.test', password: '0123456789\u0000', name: 'A' })).toEqual([{ field: '/password', message: control }]);
  });

  it('keep tab, LF, CR in multi-line values and refuse only U+0000 and lone surrogates there', () => {
    const pem = '-----BEGIN KEY-----\r\nabc\tdef\n\u001b[1m-----END KEY-----\n';
    expect(v.putAppEnv.body({ variables: [{ key: 'PEM', value: pem }] })).toBeNull();
    expect(v.putAppEnv.body({ variables: [{ key: 'A', value: 'x\u0000' }, { key: 'B', value: '\ud800' }] })).toEqual([
      { field: '/variables/0/value', message: 'must not contain U+0000' },
      { field: '/variables/1/value', message: expect.stringMatching(/lone surrogate/) },
    ]);
  });

  it('leave control characters in files-API paths to the files service (invalid_path), refusing lone surrogates', () => {
    expect(v.renameFile.body({ from: 'a\u0001', to: 'b' })).toBeNull();
    expect(v.renameFile.body({ from: 'a', to: 'b\udfff' })).toEqual([{ field: '/to', message: expect.stringMatching(/lone surrogate/) }]);
    expect(v.listFiles.query({ path: 'x\u0001' })).toEqual({ value: { path: 'x\u0001' } });
    expect(v.listDeployments.query({ cursor: 'x\u0001' })).toEqual({ errors: [{ field: '/query/cursor', message: expect.stringMatching(/control/) }] });
  });

  it('publish the text rule in the document: every request string is marked, responses are not', () => {
    const doc = openApiDocument() as { components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } };
    const s = doc.components.schemas;
    expect(s.CreateAppRequest!.properties.name![TEXT_KEYWORD]).toBe('line');
    expect(s.EnrollAgentRequest!.properties.csr![TEXT_KEYWORD]).toBe('multiline');
    expect(s.EnrollAgentRequest!.properties.csr!.description).toMatch(/Multi-line/);
    expect(s.App!.properties.name![TEXT_KEYWORD]).toBeUndefined();
    expect(s.CreateAppRequest!.properties.kind![TEXT_KEYWORD]).toBeUndefined(); // an enum holds only our strings
    // Response strings are the server's own: a log line may hold any character.
    expect(v.getDeploymentLogs.response(200, { data: [{ seq: 1, phase: 'build', text: 'a\tb\u001b[0m', at: '2026-11-21T04:05:06.789Z' }], nextAfter: 1, done: true, truncated: false })).toBeNull();
  });

  it('read numeric query parameters as decimal integers within their bounds only', () => {
    const message = 'must be a whole number from 1 to 100, in decimal digits';
    for (const limit of ['1e309', '1e2', '1.5', 'NaN', '0x10', 'Infinity', '-Infinity', '', ' 5', '+5', '05', '99999999999999999999']) {
      expect([limit, v.listDeployments.query({ limit })]).toEqual([limit, { errors: [{ field: '/query/limit', message }] }]);
    }
    expect(v.listDeployments.query({ limit: '-1' })).toEqual({ errors: [{ field: '/query/limit', message: 'must be >= 1' }] });
    expect(v.listDeployments.query({ limit: '101' })).toEqual({ errors: [{ field: '/query/limit', message: 'must be <= 100' }] });
    expect(v.listDeployments.query({ limit: ['1', '2'] })).toEqual({ errors: [{ field: '/query/limit', message: 'must be integer' }] });
    expect(v.listDeployments.query({ limit: '100' })).toEqual({ value: { limit: 100 } });
    expect(v.getDeploymentLogs.query({})).toEqual({ value: { after: 0, limit: 500 } });
    expect(v.getDeploymentLogs.query({ after: '2147483647' })).toEqual({ value: { after: 2147483647, limit: 500 } });
    expect(v.getDeploymentLogs.query({ after: '2147483648' })).toEqual({ errors: [{ field: '/query/after', message: 'must be <= 2147483647' }] });
  });

  // Schemas compile when a request first needs them: this compiles every one, so a schema ajv refuses fails here.
  it('compile every operation\'s body, query and path checks', () => {
    const fresh = createValidators();
    for (const id of Object.keys(OPERATIONS) as OperationId[]) {
      expect(() => fresh[id].body({})).not.toThrow();
      expect(() => fresh[id].query({})).not.toThrow();
      expect(() => fresh[id].param('01936f3e-8a2b-7c4d-9e0f-123456789abc')).not.toThrow();
    }
  });
});
