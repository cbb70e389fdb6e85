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
