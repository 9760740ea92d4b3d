import { assertMayTouchRole, assertOwnerRemains } from './member.service';

const code = (fn: () => void) => {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return (e as { code: string }).code;
  }
};

describe('member rules', () => {
  it('lets only owners make, change or remove owners', () => {
    expect(code(() => assertMayTouchRole('admin', null, 'developer'))).toBe('ok');
    expect(code(() => assertMayTouchRole('admin', 'viewer', 'admin'))).toBe('ok');
    expect(code(() => assertMayTouchRole('admin', null, 'owner'))).toBe('owner_required');
    expect(code(() => assertMayTouchRole('admin', 'owner', 'admin'))).toBe('owner_required');
    expect(code(() => assertMayTouchRole('admin', 'owner', null))).toBe('owner_required');
    expect(code(() => assertMayTouchRole('owner', 'owner', null))).toBe('ok');
  });

  it('keeps at least one owner', () => {
    expect(code(() => assertOwnerRemains('owner', 'admin', 1))).toBe('last_owner');
    expect(code(() => assertOwnerRemains('owner', null, 1))).toBe('last_owner');
    expect(code(() => assertOwnerRemains('owner', 'owner', 1))).toBe('ok');
    expect(code(() => assertOwnerRemains('owner', null, 2))).toBe('ok');
    expect(code(() => assertOwnerRemains('admin', null, 1))).toBe('ok');
  });
});
