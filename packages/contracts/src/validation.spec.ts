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
});
