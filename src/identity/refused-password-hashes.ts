import type { Logger } from 'pino';
import type { UserStore } from '../store/ports.ts';
import { aspNetPasswordHashProblem } from './aspnet-password-hash.ts';

/** Users read a page at a time: two columns each, so memory stays flat on any table. */
const PAGE_SIZE = 1000;

/**
 * At start, one warning per user whose stored password hash no check accepts, naming the user
 * and why (never the hash), then one with their number; nothing when there are none. Such
 * hashes are ASP.NET ones over today's caps (imported before the caps, or written by hand) or
 * not hashes at all: a sign-in against them is "does not match" without computing them, so the
 * user cannot sign in with a password until it is reset. Only the hashes that are not Argon2 are
 * read and parsed, without running any PBKDF2. Returns how many were reported.
 */
export async function reportRefusedPasswordHashes(users: UserStore, logger: Pick<Logger, 'warn'>): Promise<number> {
  let refused = 0;
  for (let afterUserId = 0; ; ) {
    const page = await users.listNonArgon2PasswordHashes(afterUserId, PAGE_SIZE);
    for (const { userId, passwordHash } of page) {
      const problem = aspNetPasswordHashProblem(passwordHash);
      if (problem === null) continue;
      refused += 1;
      logger.warn(
        { userId },
        `user ${userId}: the stored password hash ${problem}; it is never checked, so this user cannot sign in with a password until it is reset`,
      );
    }
    const last = page.at(-1);
    if (last === undefined || page.length < PAGE_SIZE) break;
    afterUserId = last.userId;
  }
  if (refused > 0) {
    const who = refused === 1 ? '1 user has' : `${refused} users have`;
    logger.warn({ refused }, `${who} a stored password hash that is not accepted: they cannot sign in with a password until it is reset`);
  }
  return refused;
}
