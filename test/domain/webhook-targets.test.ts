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
    'https://mylocalhost/x', // a local name only as a whole label
    'https://metadata.example.com/x',
    'https://mymetadata/x',
  ])('accepts %s', (url) => {
    expect(refusedTarget(url)).toBeNull();
  });

  it.each([
    'http://localhost.localdomain/x',
    'http://metadata/computeMetadata/v1/',
    'http://METADATA.GOOGLE.INTERNAL./x',
    'http://instance-data/latest/meta-data',
    'http://instance-data.ec2.internal/latest/meta-data',
    'http://a.b.localhost:8080/x',
  ])('refuses the local name %s', (url) => {
    expect(refusedTarget(url)).toBe(`${new URL(url).hostname} is a local host name`);
  });

  it('says why, in one phrase: the host and its range, or what it embeds', () => {
    expect(refusedTarget('http://10.1.2.3:8080/x')).toBe('10.1.2.3 is a private address');
    expect(refusedTarget('http://[fd00::1]/x')).toBe('fd00::1 is a private address');
    expect(refusedTarget('http://[::ffff:10.0.0.1]/x')).toBe('::ffff:a00:1 embeds 10.0.0.1, a private address');
  });

  it.each(['not a url', 'http://', '/relative/path', ''])('refuses %j as not a valid URL', (url) => {
    expect(refusedTarget(url)).toBe('not a valid URL');
  });
});

describe('refusedAddress', () => {
  it('classifies resolved addresses, IPv4-mapped ones by their IPv4 part', () => {
    expect(refusedAddress('93.184.216.34')).toBeNull();
    expect(refusedAddress('::ffff:93.184.216.34')).toBeNull();
    expect(refusedAddress('::ffff:192.168.0.1')).toBe('which embeds 192.168.0.1, a private address');
    expect(refusedAddress('fc00::5')).toBe('a private address');
    expect(refusedAddress('not-an-ip')).toBe('not an IP address');
  });
});

describe('IPv6 forms that embed an IPv4 address', () => {
  // [URL, the refusal]: the address as URL parsing spells it, then the IPv4 address it embeds and why that is refused.
  it.each([
    // IPv4-compatible, ::/96 (URL parsing writes ::169.254.169.254 as ::a9fe:a9fe)
    ['http://[::169.254.169.254]/', '::a9fe:a9fe embeds 169.254.169.254, a link-local address'],
    ['http://[::a9fe:a9fe]/latest/meta-data', '::a9fe:a9fe embeds 169.254.169.254, a link-local address'],
    ['http://[::127.0.0.1]/', '::7f00:1 embeds 127.0.0.1, a loopback address'],
    ['http://[::a00:1]/', '::a00:1 embeds 10.0.0.1, a private address'],
    ['http://[::2]/', '::2 embeds 0.0.0.2, an unspecified address'],
    // IPv4-mapped, ::ffff:0:0/96, in its spellings
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1 embeds 127.0.0.1, a loopback address'],
    ['http://[::ffff:7f00:1]/', '::ffff:7f00:1 embeds 127.0.0.1, a loopback address'],
    ['http://[0:0:0:0:0:ffff:7f00:0001]/', '::ffff:7f00:1 embeds 127.0.0.1, a loopback address'],
    ['http://[::FFFF:127.0.0.1]/', '::ffff:7f00:1 embeds 127.0.0.1, a loopback address'],
    ['http://[::ffff:100.64.0.1]/', '::ffff:6440:1 embeds 100.64.0.1, a shared (carrier-grade NAT) address'],
    ['http://[::ffff:255.255.255.255]/', '::ffff:ffff:ffff embeds 255.255.255.255, a broadcast address'],
    ['http://[::ffff:0.0.0.0]/', '::ffff:0:0 embeds 0.0.0.0, an unspecified address'],
    // SIIT, ::ffff:0:0:0/96
    ['http://[::ffff:0:7f00:1]/', '::ffff:0:7f00:1 embeds 127.0.0.1, a loopback address'],
    ['http://[::ffff:0:169.254.169.254]/', '::ffff:0:a9fe:a9fe embeds 169.254.169.254, a link-local address'],
    // NAT64, 64:ff9b::/96, and the local-use 64:ff9b:1::/48
    ['http://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1 embeds 127.0.0.1, a loopback address'],
    ['http://[64:ff9b::169.254.169.254]/', '64:ff9b::a9fe:a9fe embeds 169.254.169.254, a link-local address'],
    ['http://[64:ff9b::e000:1]/', '64:ff9b::e000:1 embeds 224.0.0.1, a multicast address'],
    ['http://[64:ff9b:1::a00:1]/', '64:ff9b:1::a00:1 embeds 10.0.0.1, a private address'],
    ['http://[64:ff9b:1:abcd::c0a8:1]/', '64:ff9b:1:abcd::c0a8:1 embeds 192.168.0.1, a private address'],
    // 6to4, 2002::/16: the IPv4 address is bits 16–47
    ['http://[2002:7f00:1::]/', '2002:7f00:1:: embeds 127.0.0.1, a loopback address'],
    ['http://[2002:c0a8:101::1]/', '2002:c0a8:101::1 embeds 192.168.1.1, a private address'],
    ['http://[2002:f000:1::1]/', '2002:f000:1::1 embeds 240.0.0.1, a reserved address (reserved)'],
    // Teredo, 2001::/32: the client is the last 32 bits inverted, the server bits 32–63
    [
      'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
      '2001:0:4136:e378:8000:63bf:80ff:fffe embeds 127.0.0.1, a loopback address',
    ],
    ['http://[2001:0:4136:e378:8000:63bf:5601:5601]/', 'embeds 169.254.169.254, a link-local address'],
    ['http://[2001:0:a00:1::1]/', '2001:0:a00:1::1 embeds 10.0.0.1, a private address'],
  ])('refuses %s', (url, reason) => {
    expect(refusedTarget(url)).toContain(reason);
  });

  it.each([
    'http://[2001:4860:4860::8888]/', // no IPv4 inside
    'http://[::ffff:8.8.8.8]/',
    'http://[::808:808]/',
    'http://[::ffff:0:808:808]/',
    'http://[64:ff9b::808:808]/', // NAT64 to 8.8.8.8
    'http://[64:ff9b:1::808:808]/',
    'http://[2002:808:808::1]/',
    'http://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/', // Teredo: server 65.54.227.120, client 8.8.8.8
  ])('accepts %s (an IPv6 form of a public IPv4 address, or none)', (url) => {
    expect(refusedTarget(url)).toBeNull();
  });

  // Near misses of the embedding forms: they end in the bits of 127.0.0.1 but are none of the forms, so they are
  // judged by their own range alone, never as 127.0.0.1 (a pattern that matched too much would say they embed it).
  it.each([
    'http://[::1:7f00:1]/', // neither compatible (::/96) nor mapped (::ffff:0:0/96)
    'http://[::1:0:7f00:1]/', // not SIIT (::ffff:0:0:0/96)
    'http://[::ffff:1:7f00:1]/', // not SIIT either
    'http://[64:1::7f00:1]/', // not NAT64 (64:ff9b::/96)
    'http://[64:ff9b:2::7f00:1]/', // neither 64:ff9b::/96 nor 64:ff9b:1::/48
  ])('does not take %s for an address that embeds 127.0.0.1', (url) => {
    expect(refusedTarget(url) ?? '').not.toContain('embeds');
  });

  it.each([
    ['http://[2001:db8::1]/', 'a reserved address (reserved)'],
    ['http://[2001:2::1]/', 'a reserved address (benchmarking)'],
    ['http://[100::1]/', 'a reserved address (discard)'],
    ['http://[ff02::1]/', 'a multicast address'],
    ['http://[fe80::a9fe:a9fe]/', 'a link-local address'],
    // The embedded forms' patterns under a prefix that is not theirs: a public IPv4 address in the last 32 bits, but
    // the address is private or link-local whatever it carries (a pattern that matched too much would accept them).
    ['http://[fd00::ffff:0:808:808]/', 'a private address'],
    ['http://[fe80::ffff:0:808:808]/', 'a link-local address'],
    ['http://[fd00::ffff:808:808]/', 'a private address'],
    ['http://[fd00::808:808]/', 'a private address'],
    ['http://[fd00:ff9b::808:808]/', 'a private address'],
    ['http://[fd64:ff9b::808:808]/', 'a private address'],
    ['http://[fd00:ff9b:1::808:808]/', 'a private address'],
  ])('still refuses %s, whose own range is not unicast (%s)', (url, reason) => {
    expect(refusedTarget(url)).toContain(`is ${reason}`);
  });

  it('judges resolved addresses the same way at delivery (what the guarded DNS lookup calls)', () => {
    expect(refusedAddress('::ffff:169.254.169.254')).toBe(
      'which embeds 169.254.169.254, a link-local address (cloud metadata services live there)',
    );
    expect(refusedAddress('::ffff:127.0.0.1')).toBe('which embeds 127.0.0.1, a loopback address');
    expect(refusedAddress('64:ff9b::7f00:1')).toBe('which embeds 127.0.0.1, a loopback address');
    expect(refusedAddress('::7f00:1')).toBe('which embeds 127.0.0.1, a loopback address');
    expect(refusedAddress('2002:a00:1::')).toBe('which embeds 10.0.0.1, a private address');
    expect(refusedAddress('::1')).toBe('a loopback address');
    expect(refusedAddress('::')).toBe('an unspecified address');
    expect(refusedAddress('64:ff9b::808:808')).toBeNull();
    expect(refusedAddress('2001:4860:4860::8888')).toBeNull();
  });
});
