import { describe, expect, it } from 'vitest';
import { CrossSitePolicy } from './cross-site.ts';

describe('CrossSitePolicy', () => {
  const policy = new CrossSitePolicy(['https://id.example.com', 'https://app.example.com:8443/']);
  const post = (headers: Record<string, string | string[]>) => policy.allows({ method: 'POST', headers });

  it('lets safe methods through whatever their origin', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      expect(policy.allows({ method, headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })).toBe(true);
    }
  });

  it('accepts the public origin and listed origins exactly', () => {
    expect(post({ origin: 'https://id.example.com' })).toBe(true);
    expect(post({ origin: 'https://app.example.com:8443' })).toBe(true);
  });

  it('refuses other origins, look-alikes, and Origin: null, for every unsafe method', () => {
    for (const origin of ['https://evil.example', 'http://id.example.com', 'https://id.example.com:444', 'https://id.example.com.evil.example', 'null', '']) {
      expect(post({ origin })).toBe(false);
    }
    for (const method of ['PUT', 'PATCH', 'DELETE']) expect(policy.allows({ method, headers: { origin: 'https://evil.example' } })).toBe(false);
  });

  it('refuses a repeated Origin header', () => {
    expect(post({ origin: ['https://id.example.com', 'https://evil.example'] })).toBe(false);
  });

  it('without Origin, goes by Sec-Fetch-Site: absent, same-origin and none pass; same-site and cross-site fail', () => {
    expect(post({})).toBe(true);
    expect(post({ 'sec-fetch-site': 'same-origin' })).toBe(true);
    expect(post({ 'sec-fetch-site': 'none' })).toBe(true);
    expect(post({ 'sec-fetch-site': 'same-site' })).toBe(false);
    expect(post({ 'sec-fetch-site': 'cross-site' })).toBe(false);
  });
});
