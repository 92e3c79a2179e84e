import type { MailMessage } from '../platform/mail/mailer.ts';
import type { User } from '../store/ports.ts';

/**
 * The mails of the membership flows (docs/reference/membership.md), written so that people and programs can
 * read them: a text part always, a simple HTML part beside it. A confirmation or reset mail holds
 * exactly one URL (in the text, and as the one link of the HTML); a sign-in code is the only run
 * of six digits in its text. Subjects carry no code or link: the dev outbox logs them.
 * Each mail goes to the stored address (`user.email`), never to what someone typed.
 */

type Recipient = Pick<User, 'id' | 'email'>;

/**
 * Where the links of the mails lead: absolute URLs under `PUBLIC_URL`, built by the HTTP ring,
 * which knows where its routes are mounted (endpoints/membership-paths.ts). Codes arrive URL-safe.
 */
export interface AccountLinks {
  /** `PUBLIC_URL/account/confirm-email?userId=<id>&code=<code>` (docs/reference/membership.md). */
  confirmEmail(userId: number, code: string): string;
  /** `PUBLIC_URL/account/reset-password?email=<e-mail>&code=<code>`. */
  resetPassword(email: string, code: string): string;
}

/** Confirmation and reset codes are base64url (or any URL-safe token). */
const URL_SAFE_CODE = /^[A-Za-z0-9_-]+$/;
const SIGN_IN_CODE = /^\d{6}$/;

export function confirmationMail(user: Recipient, code: string, links: AccountLinks): MailMessage {
  const link = links.confirmEmail(user.id, urlSafe(code));
  return linkMail(user, {
    subject: 'Confirm your e-mail address',
    before: 'To confirm your e-mail address for your Gatehouse account, open this link:',
    action: 'Confirm my e-mail address',
    link,
    after: 'The link works for 24 hours. If you did not create an account, ignore this mail.',
  });
}

/**
 * Someone registered again with the address of an account not yet confirmed: a fresh link (the
 * older ones no longer work), and the news that the account's password did not change, so that
 * an owner who registered twice knows which password is theirs and a stranger's password is
 * never one.
 */
export function reRegistrationConfirmationMail(user: Recipient, code: string, links: AccountLinks): MailMessage {
  const link = links.confirmEmail(user.id, urlSafe(code));
  return linkMail(user, {
    subject: 'Confirm your e-mail address (someone registered again)',
    before:
      'Someone just registered again with this e-mail address, which already has a Gatehouse account that is not confirmed yet. ' +
      'The password of that account was not changed: the password given just now was not stored. To confirm your e-mail address, open this link:',
    action: 'Confirm my e-mail address',
    link,
    after:
      'The link works for 24 hours; links in earlier mails no longer work. If you do not know the password of the account, or did not ' +
      'create it yourself, confirm and then set a new password with "Forgot password" on the sign-in page. If you did not register, ignore this mail.',
  });
}

/** The ways into an account besides its password, as a reset mail lists them. */
export interface OtherWaysIn {
  readonly passkeys: readonly { readonly name: string; readonly createdAt: number }[];
  /** Providers' route names. */
  readonly externalLogins: readonly string[];
}

/**
 * The reset link, and every other way into the account: an owner taking back a stolen account
 * sees a passkey or a provider the thief added, and the reset page offers to remove them all.
 */
export function resetMail(user: Recipient, code: string, links: AccountLinks, others: OtherWaysIn = { passkeys: [], externalLogins: [] }): MailMessage {
  const link = links.resetPassword(user.email, urlSafe(code));
  return linkMail(user, {
    subject: 'Reset your password',
    before: 'To choose a new password for your Gatehouse account, open this link:',
    action: 'Choose a new password',
    link,
    after: `The link works once, for 1 hour. If you did not ask for it, ignore this mail: your password stays as it is.${otherWaysIn(others)}`,
  });
}

function otherWaysIn({ passkeys, externalLogins }: OtherWaysIn): string {
  if (passkeys.length === 0 && externalLogins.length === 0) return '';
  const lines = [
    ...passkeys.map((passkey) => `- the passkey "${mailSafeName(passkey.name)}", added ${utcMinute(passkey.createdAt)}`),
    ...externalLogins.map((provider) => `- signing in with ${provider}`),
  ];
  return (
    `\n\nBesides the password, these sign in to your account:\n${lines.join('\n')}\n\n` +
    'If you do not know one of them, someone else may have added it: the reset page offers to remove every passkey and unlink every provider.'
  );
}

/**
 * A passkey's name as a mail shows it: its owner (or a thief) chose it, and a reset mail holds
 * exactly one URL, so nothing in it may read as a link or break the list.
 */
function mailSafeName(name: string): string {
  return name.replace(/[^\p{L}\p{N} _'()-]/gu, ' ').trim().slice(0, 64) || 'unnamed';
}

/** Someone tried to register with this address, which already has an account: no link, no code. */
export function registrationNoticeMail(user: Recipient): MailMessage {
  return plainMail(user, 'Someone tried to register with your e-mail address', [
    'Someone just tried to create a Gatehouse account with this e-mail address, which already has one. Your account has not changed.',
    'If it was you and you forgot your password, use "Forgot password" on the sign-in page. If it was not you, you can ignore this mail.',
  ]);
}

/** The account locked after too many failed sign-ins, until `until` (epoch ms). */
export function lockoutMail(user: Recipient, until: number): MailMessage {
  return plainMail(user, 'Your account was locked', [
    `Your Gatehouse account was locked after too many failed sign-in attempts. You can sign in again after ${utcMinute(until)}.`,
    'If these attempts were not yours, someone may know or be guessing your password: consider changing it once you are signed in.',
  ]);
}

/**
 * A provider's login was linked to the account: from the profile, or at a sign-in with the
 * provider, because it asserted the account's address verified. The owner who did not do it
 * learns of it while the link is new.
 */
export function externalLinkedMail(user: Recipient, provider: string, how: 'profile' | 'email'): MailMessage {
  const why =
    how === 'email'
      ? `Someone signed in with ${provider}, which confirmed your e-mail address, and ${provider} was linked to your Gatehouse account.`
      : `${provider} was linked to your Gatehouse account from your profile.`;
  return plainMail(user, `${provider} was linked to your account`, [
    `${why} From now on you can sign in with ${provider}.`,
    `If this was not you, sign in, unlink ${provider} on your profile page and change your password.`,
  ]);
}

/** A provider's login was unlinked: it signs in no more, and the sessions opened through it ended. */
export function externalUnlinkedMail(user: Recipient, provider: string): MailMessage {
  return plainMail(user, `${provider} was unlinked from your account`, [
    `${provider} was unlinked from your Gatehouse account: you can no longer sign in with it, and the sessions opened with it have ended.`,
    'If this was not you, someone is signed in to your account: change your password and sign out everywhere else.',
  ]);
}

/** A passkey was added: from now on it signs in to the account. */
export function passkeyAddedMail(user: Recipient, name: string): MailMessage {
  return plainMail(user, 'A passkey was added to your account', [
    `A passkey named "${name}" was added to your Gatehouse account. From now on it can sign in to your account.`,
    'If this was not you, someone is signed in to your account: remove the passkey on your profile page, change your password and sign out everywhere else.',
  ]);
}

/** A passkey was removed: it signs in no more, and every other session ended. */
export function passkeyRemovedMail(user: Recipient, name: string): MailMessage {
  return plainMail(user, 'A passkey was removed from your account', [
    `The passkey named "${name}" was removed from your Gatehouse account: it no longer signs in, and your other sessions have ended.`,
    'If this was not you, someone is signed in to your account: change your password and sign out everywhere else.',
  ]);
}

export function signInCodeMail(user: Recipient, code: string): MailMessage {
  if (!SIGN_IN_CODE.test(code)) throw new Error('A sign-in code is six digits.');
  return plainMail(user, 'Your sign-in code', [
    `Your Gatehouse sign-in code is ${code}.`,
    'It works once, for five minutes. If you did not try to sign in, someone may know your password: consider changing it.',
  ]);
}

function urlSafe(code: string): string {
  if (!URL_SAFE_CODE.test(code)) throw new Error('An account code must be URL-safe (base64url).');
  return code;
}

function linkMail(
  user: Recipient,
  parts: { subject: string; before: string; action: string; link: string; after: string },
): MailMessage {
  return {
    to: user.email,
    subject: parts.subject,
    text: `Hello,\n\n${parts.before}\n\n${parts.link}\n\n${parts.after}\n`,
    // The URL appears once, as the href: the HTML holds the same single link as the text.
    html: page(`<p>Hello,</p><p>${escapeHtml(parts.before)}</p><p><a href="${escapeHtml(parts.link)}">${escapeHtml(parts.action)}</a></p><p>${escapeHtml(parts.after).replaceAll('\n', '<br>')}</p>`),
  };
}

function plainMail(user: Recipient, subject: string, paragraphs: string[]): MailMessage {
  return {
    to: user.email,
    subject,
    text: `Hello,\n\n${paragraphs.join('\n\n')}\n`,
    html: page(`<p>Hello,</p>${paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('')}`),
  };
}

function page(body: string): string {
  return `<!doctype html><html><body>${body}</body></html>`;
}

/** `2026-01-01 00:05 UTC`: a fixed, locale-free form. */
function utcMinute(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
