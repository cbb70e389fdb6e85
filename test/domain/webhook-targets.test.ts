// The SSRF guard's classification of webhook targets (src/security/webhook-targets.ts).
import { describe, expect, it } from 'vitest';
import { refusedAddress, refusedTarget } from '../../src/security/webhook-targets.js';

describe('refusedTarget', () => {
  it.each([
    ['http://127.0.0.1/x', 'loopback'],
    ['http://127.8.9.10:8080/x', 'loopback'],
    ['http://0x7f.1/x', 'loopback'], // WHATWG URL parsing normalises this to 127.0.0.1
    ['http://2130706433/x', 'loopback'], // …and this
    ['http://[::1]/x', 'loopback'],
    ['http://[::ffff:127.0.0.1]/x', 'loopback'],
    ['http://10.0.0.1/x', 'private'],
    ['http://172.16.5.4/x', 'private'],
    ['http://172.31.255.255/x', 'private'],
    ['http://192.168.1.1/x', 'private'],
    ['http://[fd00::1]/x', 'private'],
    ['http://[::ffff:10.0.0.1]/x', 'private'],
    ['http://169.254.169.254/latest/meta-data', 'link-local'],
    ['http://[fe80::1]/x', 'link-local'],
    ['http://100.100.100.200/x', 'carrier-grade NAT'],
    ['http://0.0.0.0/x', 'unspecified'],
    ['http://[::]/x', 'unspecified'],
    ['http://224.0.0.1/x', 'multicast'],
    ['http://255.255.255.255/x', 'broadcast'],
    ['http://localhost:3000/x', 'local host name'],
    ['http://api.localhost/x', 'local host name'],
    ['http://LOCALHOST./x', 'local host name'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'local host name'],
  ])('refuses %s (%s)', (url, kind) => {
    expect(refusedTarget(url)).toContain(kind);
  });

  it.each([
    'https://hooks.example.com/x',
    'http://8.8.8.8/x',
    'https://[2606:4700:4700::1111]/dns-query',
    'http://172.32.0.1/x', // just outside 172.16/12
    'http://100.128.0.1/x', // just outside 100.64/10
    'https://localhost.example.com/x',
  ])('accepts %s', (url) => {
    expect(refusedTarget(url)).toBeNull();
  });
});

describe('refusedAddress', () => {
  it('classifies resolved addresses, IPv4-mapped ones by their IPv4 part', () => {
    expect(refusedAddress('93.184.216.34')).toBeNull();
    expect(refusedAddress('::ffff:93.184.216.34')).toBeNull();
    expect(refusedAddress('::ffff:192.168.0.1')).toBe('a private address');
    expect(refusedAddress('fc00::5')).toBe('a private address');
    expect(refusedAddress('not-an-ip')).toBe('not an IP address');
  });
});

describe('IPv6 forms that embed an IPv4 address', () => {
  it.each([
    ['http://[::169.254.169.254]/', 'link-local', '169.254.169.254'], // IPv4-compatible (URL parsing: ::a9fe:a9fe)
    ['http://[::127.0.0.1]/', 'loopback', '127.0.0.1'],
    ['http://[::a00:1]/', 'private', '10.0.0.1'],
    ['http://[::ffff:7f00:1]/', 'loopback', ''], // IPv4-mapped, in its spellings
    ['http://[0:0:0:0:0:ffff:7f00:0001]/', 'loopback', ''],
    ['http://[::FFFF:127.0.0.1]/', 'loopback', ''],
    ['http://[::ffff:0:7f00:1]/', 'loopback', '127.0.0.1'], // SIIT
    ['http://[64:ff9b::7f00:1]/', 'loopback', '127.0.0.1'], // NAT64
    ['http://[64:ff9b::a9fe:a9fe]/', 'link-local', '169.254.169.254'],
    ['http://[64:ff9b:1::a00:1]/', 'private', '10.0.0.1'], // local-use NAT64
    ['http://[2002:7f00:1::]/', 'loopback', '127.0.0.1'], // 6to4
    ['http://[2002:c0a8:101::1]/', 'private', '192.168.1.1'],
    ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'loopback', '127.0.0.1'], // Teredo: client 127.0.0.1
    ['http://[2001:0:a00:1::1]/', 'private', '10.0.0.1'], // Teredo: server 10.0.0.1
  ])('refuses %s (%s %s)', (url, kind, inner) => {
    const reason = refusedTarget(url);
    expect(reason).toContain(kind);
    if (inner) expect(reason).toContain(`embeds ${inner}`);
  });

  it.each(['http://[2001:4860:4860::8888]/', 'http://[64:ff9b::808:808]/', 'http://[2002:808:808::1]/'])(
    'accepts %s (a public IPv4 address, or none)',
    (url) => {
      expect(refusedTarget(url)).toBeNull();
    },
  );

  it('judges resolved addresses the same way at delivery (what the guarded DNS lookup calls)', () => {
    expect(refusedAddress('::ffff:169.254.169.254')).toContain('link-local');
    expect(refusedAddress('64:ff9b::7f00:1')).toContain('loopback');
    expect(refusedAddress('::7f00:1')).toContain('loopback');
    expect(refusedAddress('2002:a00:1::')).toContain('private');
    expect(refusedAddress('64:ff9b::808:808')).toBeNull();
  });
});
