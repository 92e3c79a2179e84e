/**
 * One template per mail Gatehouse sends, each a function of that mail's variables and the
 * product's name, returning its subject, text and HTML. An application replaces any of them
 * (`mails: { templates }`, docs/mails.md); the built-in ones are here. Whoever wrote a template,
 * the mail it renders is checked before it leaves (platform/mail/mail-rules.ts), and its
 * variables arrive ready: links built under PUBLIC_URL and the prefix, names chosen by users made
 * plain words, times as `Date`s. The words are English for now; a locale will join
 * `MailContext` when they come from a catalogue.
 */
import { escapeHtml, type MailBody, mailParts, type MailParts } from '../platform/mail/mail-parts.ts';
import type { MailContent } from '../platform/mail/mail-rules.ts';
import { organizationInvitationTemplate } from '../organizations/invitation-mail.ts';

export type { MailContent } from '../platform/mail/mail-rules.ts';

/** What every template gets besides its mail's variables. */
export interface MailContext {
  /** `pages.productName`: the product the mails speak for. @default 'Gatehouse' */
  readonly productName: string;
}

/** The ways into an account besides its password, as a reset mail lists them. */
export interface OtherWaysInVariables {
  /** Each passkey's name (plain words) and when it was added. */
  readonly passkeys: readonly { readonly name: string; readonly createdAt: Date }[];
  /** Providers' route names. */
  readonly externalLogins: readonly string[];
}

/** Each mail's variables, by the mail's name. A `link` is the mail's one URL; a `code`, its sign-in code. */
export interface MailVariables {
  /** A new account's address to confirm. */
  readonly confirmEmail: { readonly link: string };
  /** Someone registered again with an unconfirmed account's address: a fresh link, the password unchanged. */
  readonly confirmEmailAgain: { readonly link: string };
  /** A reset link, and every other way into the account. */
  readonly resetPassword: { readonly link: string; readonly otherWaysIn: OtherWaysInVariables };
  /** Someone tried to register with the address of an existing account. */
  readonly registrationNotice: Record<never, never>;
  /** The account locked after too many failed attempts, until `until`. */
  readonly lockout: { readonly until: Date };
  /** A provider was linked: from the profile, or at a sign-in that proved the address (`how: 'email'`). */
  readonly externalLinked: { readonly provider: string; readonly how: 'profile' | 'email' };
  readonly externalUnlinked: { readonly provider: string };
  readonly passkeyAdded: { readonly passkeyName: string };
  readonly passkeyRemoved: { readonly passkeyName: string };
  /** Six digits. */
  readonly signInCode: { readonly code: string };
  /** An invitation to an organization: its name (plain words) and the roles it gives. */
  readonly organizationInvitation: { readonly link: string; readonly organizationName: string; readonly roles: readonly string[] };
}

export type MailName = keyof MailVariables;

/** One mail's template: its variables with the context in, its subject, text and HTML out. */
export type MailTemplate<Variables> = (variables: Variables & MailContext, kit: MailKit) => MailContent;

export type MailTemplates = { readonly [Name in MailName]: MailTemplate<MailVariables[Name]> };

/** The helpers a template gets: the built-in templates, to wrap one, and the built-in layout and escaping. */
export interface MailKit {
  readonly defaults: MailTemplates;
  /** The text and HTML parts from paragraphs and at most one action, in the built-in layout. */
  readonly parts: (body: MailBody) => MailParts;
  /** Text made safe for HTML element content and quoted attribute values. */
  readonly escapeHtml: (text: string) => string;
}

/** The application's part of the mails. */
export interface MailOptions {
  /** Any mail's template, replacing the built-in one. */
  readonly templates?: Partial<MailTemplates>;
}

export const DEFAULT_PRODUCT_NAME = 'Gatehouse';

const CONFIRM_ACTION = 'Confirm my e-mail address';

/** A mail with one link, its words around it. */
function linkMail(productName: string, subject: string, before: string, action: { label: string; link: string }, after: readonly string[]): MailContent {
  return { subject, ...mailParts({ productName, subject, paragraphs: [before], action, after }) };
}

/** A mail of words only. */
function wordsMail(productName: string, subject: string, paragraphs: readonly string[]): MailContent {
  return { subject, ...mailParts({ productName, subject, paragraphs }) };
}

const confirmEmail: MailTemplate<MailVariables['confirmEmail']> = ({ productName, link }) =>
  linkMail(
    productName,
    'Confirm your e-mail address',
    `To confirm your e-mail address for your ${productName} account, open this link:`,
    { label: CONFIRM_ACTION, link },
    ['The link works for 24 hours. If you did not create an account, ignore this mail.'],
  );

/**
 * The news that the account's password did not change, so that an owner who registered twice
 * knows which password is theirs and a stranger's password is never one.
 */
const confirmEmailAgain: MailTemplate<MailVariables['confirmEmailAgain']> = ({ productName, link }) =>
  linkMail(
    productName,
    'Confirm your e-mail address (someone registered again)',
    // No article before the product's name: "a" or "an" depends on the name.
    `Someone just registered again at ${productName} with this e-mail address, which already has an account that is not confirmed yet. ` +
      'The password of that account was not changed: the password given just now was not stored. To confirm your e-mail address, open this link:',
    { label: CONFIRM_ACTION, link },
    [
      'The link works for 24 hours; links in earlier mails no longer work. If you do not know the password of the account, or did not ' +
        'create it yourself, confirm and then set a new password with "Forgot password" on the sign-in page. If you did not register, ignore this mail.',
    ],
  );

/**
 * Every other way into the account: an owner taking back a stolen account sees a passkey or a
 * provider the thief added, and the reset page offers to remove them all.
 */
const resetPassword: MailTemplate<MailVariables['resetPassword']> = ({ productName, link, otherWaysIn }) =>
  linkMail(
    productName,
    'Reset your password',
    `To choose a new password for your ${productName} account, open this link:`,
    { label: 'Choose a new password', link },
    ['The link works once, for 1 hour. If you did not ask for it, ignore this mail: your password stays as it is.', ...otherWaysInParagraphs(otherWaysIn)],
  );

function otherWaysInParagraphs({ passkeys, externalLogins }: OtherWaysInVariables): string[] {
  if (passkeys.length === 0 && externalLogins.length === 0) return [];
  const lines = [
    ...passkeys.map((passkey) => `- the passkey "${passkey.name}", added ${utcMinute(passkey.createdAt)}`),
    ...externalLogins.map((provider) => `- signing in with ${provider}`),
  ];
  return [
    `Besides the password, these sign in to your account:\n${lines.join('\n')}`,
    'If you do not know one of them, someone else may have added it: the reset page offers to remove every passkey and unlink every provider.',
  ];
}

const registrationNotice: MailTemplate<MailVariables['registrationNotice']> = ({ productName }) =>
  wordsMail(productName, 'Someone tried to register with your e-mail address', [
    `Someone just tried to register at ${productName} with this e-mail address, which already has an account. Your account has not changed.`,
    'If it was you and you forgot your password, use "Forgot password" on the sign-in page. If it was not you, you can ignore this mail.',
  ]);

const lockout: MailTemplate<MailVariables['lockout']> = ({ productName, until }) =>
  wordsMail(productName, 'Your account was locked', [
    `Your ${productName} account was locked after too many failed sign-in attempts. You can sign in again after ${utcMinute(until)}.`,
    'If these attempts were not yours, someone may know or be guessing your password: consider changing it once you are signed in.',
  ]);

/** The owner who did not link the provider learns of it while the link is new. */
const externalLinked: MailTemplate<MailVariables['externalLinked']> = ({ productName, provider, how }) => {
  const why =
    how === 'email'
      ? `Someone signed in with ${provider}, which confirmed your e-mail address, and ${provider} was linked to your ${productName} account.`
      : `${provider} was linked to your ${productName} account from your profile.`;
  return wordsMail(productName, `${provider} was linked to your account`, [
    `${why} From now on you can sign in with ${provider}.`,
    `If this was not you, sign in, unlink ${provider} on your profile page and change your password.`,
  ]);
};

const externalUnlinked: MailTemplate<MailVariables['externalUnlinked']> = ({ productName, provider }) =>
  wordsMail(productName, `${provider} was unlinked from your account`, [
    `${provider} was unlinked from your ${productName} account: you can no longer sign in with it, and the sessions opened with it have ended.`,
    'If this was not you, someone is signed in to your account: change your password and sign out everywhere else.',
  ]);

const passkeyAdded: MailTemplate<MailVariables['passkeyAdded']> = ({ productName, passkeyName }) =>
  wordsMail(productName, 'A passkey was added to your account', [
    `A passkey named "${passkeyName}" was added to your ${productName} account. From now on it can sign in to your account.`,
    'If this was not you, someone is signed in to your account: remove the passkey on your profile page, change your password and sign out everywhere else.',
  ]);

const passkeyRemoved: MailTemplate<MailVariables['passkeyRemoved']> = ({ productName, passkeyName }) =>
  wordsMail(productName, 'A passkey was removed from your account', [
    `The passkey named "${passkeyName}" was removed from your ${productName} account: it no longer signs in, and your other sessions have ended.`,
    'If this was not you, someone is signed in to your account: change your password and sign out everywhere else.',
  ]);

const signInCode: MailTemplate<MailVariables['signInCode']> = ({ productName, code }) =>
  wordsMail(productName, 'Your sign-in code', [
    `Your ${productName} sign-in code is ${code}.`,
    'It works once, for five minutes. If you did not try to sign in, someone may know your password: consider changing it.',
  ]);

export const BUILT_IN_MAIL_TEMPLATES: MailTemplates = Object.freeze({
  confirmEmail,
  confirmEmailAgain,
  resetPassword,
  registrationNotice,
  lockout,
  externalLinked,
  externalUnlinked,
  passkeyAdded,
  passkeyRemoved,
  signInCode,
  organizationInvitation: organizationInvitationTemplate,
});

export const MAIL_KIT: MailKit = Object.freeze({ defaults: BUILT_IN_MAIL_TEMPLATES, parts: mailParts, escapeHtml });

/** `2026-01-01 00:05 UTC`: a fixed, locale-free form. */
export function utcMinute(time: Date): string {
  return `${time.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
