import { describe, expect, it } from 'vitest';
import type { ListedSession } from '../../identity/user-sessions.ts';
import type { LocateAddress } from '../../pages/rendering.ts';
import { ProfilePage } from './profile-page.ts';

const CHROME_ON_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const listed = (id: string, ip: string | null, userAgent: string | null, kind: 'cookie' | 'token' = 'cookie'): ListedSession => ({
  id, kind, current: false, createdAt: 0, lastSeenAt: 0, expiresAt: 0, userAgent, ip, method: null,
});
const SESSIONS = [listed('a', '192.0.2.1', CHROME_ON_LINUX), listed('b', '192.0.2.1', 'curl/8.0.1', 'token'), listed('c', '192.0.2.2', null), listed('d', null, null, 'token')];
const request = { user: { subject: '7' }, headers: {} } as never;

function profilePage(locate?: LocateAddress) {
  return new ProfilePage({
    pages: { render: () => { throw new Error('not rendered here'); }, language: () => 'en', ...(locate ? { locate } : {}) },
    cookies: { presentedSession: () => null },
    sessions: { current: () => { throw new Error('no cookie presented'); } },
    userSessions: { list: async () => SESSIONS },
  });
}

describe('ProfilePage.sessionsOf', () => {
  it('describes each device, and without locate leaves every place unknown', async () => {
    const sessions = await profilePage().sessionsOf(request);
    expect(sessions!.map(({ device, location }) => [device, location])).toEqual([
      ['Chrome on Linux', null],
      ['curl', null],
      ['Unknown device', null],
      ['An app', null],
    ]);
  });

  it('asks locate once per address, and a failed or empty answer leaves the place unknown', async () => {
    const asked: string[] = [];
    const sessions = await profilePage(async (ip) => {
      asked.push(ip);
      if (ip === '192.0.2.2') throw new Error('lookup down');
      return ' Berlin, Germany ';
    }).sessionsOf(request);
    expect(sessions!.map((session) => session.location)).toEqual(['Berlin, Germany', 'Berlin, Germany', null, null]);
    expect(asked.sort()).toEqual(['192.0.2.1', '192.0.2.2']);
    const blank = await profilePage(() => '  ').sessionsOf(request);
    expect(blank!.map((session) => session.location)).toEqual([null, null, null, null]);
  });
});
