import { describe, expect, it } from 'vitest';
import { SecurityChanges } from './security-changes.ts';
import type { AskingSession, PresentedSession } from './sessions.ts';

const CLIENT = { ip: '203.0.113.9', userAgent: 'Test Browser' };
const ASKING: AskingSession = { token: 'old', client: CLIENT, userId: 7, persistent: true, method: 'password', signedInAt: 1 };

/** A SecurityChanges whose collaborators write down, in order, what was asked of them. */
function recorded() {
  const steps: string[] = [];
  const changes = new SecurityChanges({
    sessions: {
      asking: async (presented: PresentedSession | null) => (steps.push(`asking ${presented?.token ?? 'none'}`), presented === null ? null : ASKING),
      reissue: async (asking: AskingSession) => (steps.push(`reissue ${asking.token}`), { token: 'new', expiresAt: 2, persistent: asking.persistent }),
    },
    revocationFeed: { changed: async () => void steps.push('announce') },
  });
  return { steps, changes };
}

describe('SecurityChanges', () => {
  it('announces the committed change before it re-issues the asking session', async () => {
    const { steps, changes } = recorded();
    const asking = await changes.askingSession({ session: { token: 'old', client: CLIENT } });

    expect(await changes.committed(asking)).toEqual({ token: 'new', expiresAt: 2, persistent: true });
    expect(steps).toEqual(['asking old', 'announce', 'reissue old']);
  });

  it('only announces a change asked without a cookie session', async () => {
    const { steps, changes } = recorded();
    const asking = await changes.askingSession({ ip: CLIENT.ip });

    expect(await changes.committed(asking)).toBeNull();
    expect(steps).toEqual(['asking none', 'announce']);
  });
});
