import { describe, expect, it } from 'vitest';
import { Mails } from './account-mail.ts';
import { MembershipPaths } from '../endpoints/membership-paths.ts';

const user = { id: 42, email: 'Ada+Test@Example.com' };
/** The built-in mails under the default product name: their words are the ones before templates existed. */
const mails = new Mails();
const links = MembershipPaths.ROOT.accountLinks(new URL('https://id.example.com'));
/** 256 bits, base64url: what the account codes look like. */
const CODE = 'Zm9vYmFyLWJhei1xdXV4_LTEyMzQ1Njc4OTAtYWJjZGVm';

/** Every http(s) URL in a text. */
const urls = (text: string) => text.match(/https?:\/\/[^\s"'<>]+/g) ?? [];
/** Anything that looks like a link at all, http or not. */
const linkish = (text: string) => text.match(/[a-z][a-z0-9+.-]*:\/\/|www\./gi) ?? [];
const sixDigitRuns = (text: string) => text.match(/\d{6,}/g) ?? [];

describe('confirmEmailAgain', () => {
  const mail = mails.confirmEmailAgain(user, CODE, links);

  it('holds exactly one URL, the confirmation link, in the text and as the one link of its HTML', () => {
    expect(mail.to).toBe('Ada+Test@Example.com');
    expect(linkish(mail.text)).toHaveLength(1);
    expect(urls(mail.text)).toEqual([`https://id.example.com/account/confirm-email?userId=42&code=${CODE}`]);
    const html = mail.html!.replaceAll('&#38;', '&');
    expect(urls(html)).toEqual(urls(mail.text));
    expect(html.match(/<a\s/g)).toHaveLength(1);
    expect(mail.subject).not.toContain(CODE);
  });

  it('says that someone registered again and that the password was not changed', () => {
    expect(mail.text).toMatch(/registered again/);
    expect(mail.text).toMatch(/password of that account was not changed/);
    expect(mail.text).toMatch(/Forgot password/);
  });
});

describe('confirmEmail', () => {
  const mail = mails.confirmEmail(user, CODE, links);

  it('goes to the stored address, with a text part and an HTML part', () => {
    expect(mail.to).toBe('Ada+Test@Example.com');
    expect(mail.text.length).toBeGreaterThan(0);
    expect(mail.html).toBeDefined();
  });

  it('holds exactly one URL in the text, PUBLIC_URL/account/confirm-email?userId=<id>&code=<code>', () => {
    expect(linkish(mail.text)).toHaveLength(1);
    expect(urls(mail.text)).toEqual([`https://id.example.com/account/confirm-email?userId=42&code=${CODE}`]);
    const url = new URL(urls(mail.text)[0]!);
    expect(url.pathname).toBe('/account/confirm-email');
    expect([...url.searchParams.keys()]).toEqual(['userId', 'code']);
    expect(url.searchParams.get('userId')).toBe('42');
    expect(url.searchParams.get('code')).toBe(CODE);
  });

  it('has the same single URL as the one link of its HTML', () => {
    const html = mail.html!.replaceAll('&#38;', '&');
    expect(urls(html)).toEqual(urls(mail.text));
    expect(html.match(/<a\s/g)).toHaveLength(1);
  });

  it('keeps the code out of the subject (the dev outbox logs subjects)', () => {
    expect(mail.subject).not.toContain(CODE);
    expect(linkish(mail.subject)).toEqual([]);
  });

  it('keeps PUBLIC_URL’s path prefix', () => {
    const prefixed = mails.confirmEmail(user, CODE, MembershipPaths.ROOT.accountLinks(new URL('https://example.com/identity/')));
    expect(urls(prefixed.text)).toEqual([`https://example.com/identity/account/confirm-email?userId=42&code=${CODE}`]);
  });

  it('refuses a code that is not URL-safe', () => {
    expect(() => mails.confirmEmail(user, 'a+b/c=', links)).toThrow(/URL-safe/);
  });
});

describe('resetPassword', () => {
  const mail = mails.resetPassword(user, CODE, links);

  it('holds exactly one URL, PUBLIC_URL/account/reset-password?email=<e-mail>&code=<code>, with the e-mail URL-encoded', () => {
    expect(linkish(mail.text)).toHaveLength(1);
    expect(urls(mail.text)).toEqual([`https://id.example.com/account/reset-password?email=Ada%2BTest%40Example.com&code=${CODE}`]);
    const url = new URL(urls(mail.text)[0]!);
    expect(url.pathname).toBe('/account/reset-password');
    expect([...url.searchParams.keys()]).toEqual(['email', 'code']);
    // `+` survives the round trip: a form decoder would otherwise read it as a space.
    expect(url.searchParams.get('email')).toBe('Ada+Test@Example.com');
    expect(url.searchParams.get('code')).toBe(CODE);
  });

  it('goes to the stored address, the one in the link', () => {
    expect(mail.to).toBe(user.email);
  });

  it('has the same single URL as the one link of its HTML, and none in the subject', () => {
    expect(urls(mail.html!.replaceAll('&#38;', '&'))).toEqual(urls(mail.text));
    expect(mail.subject).not.toContain(CODE);
  });
});

describe('registrationNotice', () => {
  const mail = mails.registrationNotice(user);

  it('goes to the stored address and holds no link and no code, only words pointing to "Forgot password"', () => {
    expect(mail.to).toBe(user.email);
    expect(linkish(mail.text)).toEqual([]);
    expect(linkish(mail.html!)).toEqual([]);
    expect(sixDigitRuns(mail.text)).toEqual([]);
    expect(mail.text).toContain('Forgot password');
  });
});

describe('lockout', () => {
  it('says until when, in UTC, with no link and no six-digit run', () => {
    const mail = mails.lockout(user, Date.UTC(2026, 0, 2, 3, 4, 59));
    expect(mail.to).toBe(user.email);
    expect(mail.text).toContain('2026-01-02 03:04 UTC');
    expect(linkish(mail.text)).toEqual([]);
    expect(sixDigitRuns(mail.text)).toEqual([]);
  });
});

describe('the external login notices', () => {
  it('go to the stored address, name the provider and how it was linked, and hold no link or code', () => {
    const byEmail = mails.externalLinked(user, 'acme', 'email');
    const byProfile = mails.externalLinked(user, 'acme', 'profile');
    const unlinked = mails.externalUnlinked(user, 'acme');
    for (const mail of [byEmail, byProfile, unlinked]) {
      expect(mail.to).toBe(user.email);
      expect(mail.subject).toContain('acme');
      expect(linkish(mail.text)).toEqual([]);
      expect(linkish(mail.html!)).toEqual([]);
      expect(sixDigitRuns(mail.text)).toEqual([]);
    }
    expect(byEmail.text).toContain('confirmed your e-mail address');
    expect(byProfile.text).toContain('from your profile');
    expect(unlinked.text).toContain('can no longer sign in with it');
  });
});

describe('signInCode', () => {
  it('holds the code as the only run of six digits in its text, and not in its subject', () => {
    const mail = mails.signInCode(user, '042917');
    expect(sixDigitRuns(mail.text)).toEqual(['042917']);
    expect(mail.text.match(/\d+/g)).toEqual(['042917']);
    expect(mail.subject).not.toMatch(/\d/);
    expect(linkish(mail.text)).toEqual([]);
    expect(mail.to).toBe(user.email);
  });

  it('refuses anything but six digits', () => {
    for (const code of ['12345', '1234567', '12345a', ' 123456']) expect(() => mails.signInCode(user, code)).toThrow(/six digits/);
  });
});

describe('every mail', () => {
  it('escapes what it puts in HTML', () => {
    const odd = { id: 1, email: `o'brien&<x>@example.com` };
    expect(mails.resetPassword(odd, CODE, links).html).not.toMatch(/href="[^"]*['<>]/);
  });
});
