import { tlsGuard } from './public-listener';

const pgMessage = (code: number, length = 8) => {
  const b = Buffer.alloc(8);
  b.writeInt32BE(length, 0);
  b.writeInt32BE(code, 4);
  return b;
};

describe('the public listener refuses clients that do not start TLS', () => {
  it('postgres: SSLRequest or a direct TLS ClientHello pass, GSSENCRequest is declined, a StartupMessage is cut', () => {
    expect(tlsGuard('postgres', pgMessage(80877103))).toEqual({ verdict: 'pass' });
    expect(tlsGuard('postgres', Buffer.from([0x16, 0x03, 0x01]))).toEqual({ verdict: 'pass' });
    expect(tlsGuard('postgres', pgMessage(80877104))).toEqual({ verdict: 'reply', reply: Buffer.from('N'), consumed: 8 });
    // StartupMessage: length, protocol 3.0, "user\0..."
    const startup = Buffer.concat([pgMessage(196608, 41), Buffer.from('user\0app\0database\0appdb\0\0')]);
    expect(tlsGuard('postgres', startup)).toEqual({ verdict: 'refuse' });
    expect(tlsGuard('postgres', pgMessage(80877103).subarray(0, 5))).toEqual({ verdict: 'more' });
  });

  it('mysql: the first client packet must carry CLIENT_SSL', () => {
    const packet = (caps: number) => {
      const b = Buffer.alloc(36);
      b.writeUIntLE(32, 0, 3);
      b[3] = 1;
      b.writeUInt32LE(caps, 4);
      return b;
    };
    expect(tlsGuard('mysql', packet(0x000aa200 | 0x800))).toEqual({ verdict: 'pass' });
    expect(tlsGuard('mysql', packet(0x000aa200))).toEqual({ verdict: 'refuse' });
    expect(tlsGuard('mysql', packet(0x800).subarray(0, 6))).toEqual({ verdict: 'more' });
  });

  it('tls (redis, mongodb): the first byte must open a TLS handshake', () => {
    expect(tlsGuard('tls', Buffer.from([0x16, 0x03]))).toEqual({ verdict: 'pass' });
    expect(tlsGuard('tls', Buffer.from('PING\r\n'))).toEqual({ verdict: 'refuse' });
    expect(tlsGuard('tls', Buffer.alloc(0))).toEqual({ verdict: 'more' });
  });
});
