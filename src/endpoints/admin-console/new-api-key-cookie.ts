import type { Clock } from '../../platform/clock.ts';
import { CookieProtector } from '../../security/authentication/index.ts';
import type { KeyRing } from '../../tokens/key-ring.ts';
import { type CookieSource, readCookie, type ResponseCookies } from '../cookies.ts';

/** A key just made, for the page after the form: long enough for the redirect, no longer. */
const LIFETIME_MS = 60_000;

interface NewKeyValue {
  readonly client: string;
  readonly key: string;
  /** The admin who made it: no one else signed in on that browser sees it. */
  readonly by: string;
  readonly expiresAt: number;
}

/**
 * The API key the console's "Create a key" form made, carried to the page it redirects to, which
 * shows it once and clears it: a reload shows it no more, and a post is never repeated. A sealed
 * (encrypted), HttpOnly, SameSite=Strict cookie `gh.newkey` (`__Host-gh.newkey` in production)
 * that lives a minute at most; the store keeps only the key's hash, so nothing else could show
 * the key again.
 */
export class NewApiKeyCookie {
  private readonly protector: CookieProtector;
  private readonly name: string;

  constructor(private readonly dependencies: { readonly production: boolean; readonly clock: Clock; readonly keyRing: Pick<KeyRing, 'secrets'> }) {
    this.protector = new CookieProtector(dependencies.keyRing.secrets.cookie, 'gh.newkey');
    this.name = dependencies.production ? '__Host-gh.newkey' : 'gh.newkey';
  }

  set(cookies: ResponseCookies, created: { readonly client: string; readonly key: string }, by: string): void {
    const value: NewKeyValue = { ...created, by, expiresAt: this.dependencies.clock.now() + LIFETIME_MS };
    cookies.set(this.name, this.protector.protect(JSON.stringify(value)), { ...this.attributes(), maxAge: LIFETIME_MS / 1000 });
  }

  /** Whether the browser sent one, valid or not: the page clears it either way. */
  present(request: CookieSource): boolean {
    return readCookie(request, this.name) !== undefined;
  }

  /** The key this browser carries for `by`, while the cookie lasts; null otherwise. */
  read(request: CookieSource, by: string): { readonly client: string; readonly key: string } | null {
    const sealed = readCookie(request, this.name);
    const plain = sealed === undefined ? null : this.protector.unprotect(sealed);
    if (plain === null) return null;
    try {
      const value = JSON.parse(plain) as NewKeyValue;
      const valid = typeof value.client === 'string' && typeof value.key === 'string' && value.by === by && value.expiresAt > this.dependencies.clock.now();
      return valid ? { client: value.client, key: value.key } : null;
    } catch {
      return null;
    }
  }

  clear(cookies: ResponseCookies): void {
    cookies.set(this.name, '', { ...this.attributes(), expires: new Date(0), maxAge: 0 });
  }

  private attributes() {
    return { httpOnly: true, sameSite: 'strict', path: '/', secure: this.dependencies.production } as const;
  }
}
