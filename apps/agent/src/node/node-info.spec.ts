import { advertisedAddress } from './node-info';

describe('advertisedAddress', () => {
  it('prefers the configured address, then the listen address', () => {
    expect(advertisedAddress('127.0.0.1:7443', '', ['203.0.113.7'])).toBe('127.0.0.1:7443');
    expect(advertisedAddress('0.0.0.0:7443', 'agent1.example.com:7443', ['203.0.113.7'])).toBe('agent1.example.com:7443');
  });

  it('never advertises a wildcard host', () => {
    expect(advertisedAddress('0.0.0.0:7443', '', ['203.0.113.7', '203.0.113.8'])).toBe('203.0.113.7:7443');
    expect(advertisedAddress('[::]:7443', '', ['203.0.113.7'])).toBe('203.0.113.7:7443');
  });
});
