/**
 * One template per mail Gatehouse sends, each a function of that mail's variables and the
 * product's name, returning its subject, text and HTML. An application replaces any of them
 * (`mails: { templates }`, docs/mails.md); the built-in ones are here. Whoever wrote a template,
 * the mail it renders is checked before it leaves (platform/mail/mail-rules.ts), and its
 * variables arrive ready: links built under PUBLIC_URL and the prefix, names chosen by users made
 * plain words, times as `Date`s. The words come from the message catalogue of the mail's
 * language (`messages`, i18n/): the request's that caused the mail, else the default language.
 */
import { escapeHtml, type MailBody, mailParts, type MailParts } from '../platform/mail/mail-parts.ts';
import type { MailContent } from '../platform/mail/mail-rules.ts';
import type { Messages } from '../i18n/messages.ts';
import { organizationInvitationTemplate } from '../organizations/invitation-mail.ts';

export type { MailContent } from '../platform/mail/mail-rules.ts';

/** What every template gets besides its mail's variables. */
export interface MailContext {
  /** `pages.productName`: the product the mails speak for. @default 'Gatehouse' */
  readonly productName: string;
  /** The mail's language tag (`en`, `de`): the request's that caused it, else the default language. */
  readonly language: string;
  /** The texts of that language: the built-in templates take every word from them. */
  readonly messages: Messages;
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

/** A mail with one link, its words around it. */
function linkMail(productName: string, subject: string, before: string, action: { label: string; link: string }, after: readonly string[]): MailContent {
  return { subject, ...mailParts({ productName, subject, paragraphs: [before], action, after }) };
}

/** A mail of words only. */
function wordsMail(productName: string, subject: string, paragraphs: readonly string[]): MailContent {
  return { subject, ...mailParts({ productName, subject, paragraphs }) };
}

const confirmEmail: MailTemplate<MailVariables['confirmEmail']> = ({ productName: product, link, messages: m }) =>
  linkMail(product, m.mailConfirmEmailSubject, m.mailConfirmEmailIntro({ product }), { label: m.mailConfirmAction, link }, [m.mailConfirmEmailOutro]);

/**
 * The news that the account's password did not change, so that an owner who registered twice
 * knows which password is theirs and a stranger's password is never one.
 */
const confirmEmailAgain: MailTemplate<MailVariables['confirmEmailAgain']> = ({ productName: product, link, messages: m }) =>
  linkMail(product, m.mailConfirmEmailAgainSubject, m.mailConfirmEmailAgainIntro({ product }), { label: m.mailConfirmAction, link }, [m.mailConfirmEmailAgainOutro]);

/**
 * Every other way into the account: an owner taking back a stolen account sees a passkey or a
 * provider the thief added, and the reset page offers to remove them all.
 */
const resetPassword: MailTemplate<MailVariables['resetPassword']> = ({ productName: product, link, otherWaysIn, messages: m }) =>
  linkMail(product, m.mailResetPasswordSubject, m.mailResetPasswordIntro({ product }), { label: m.mailResetPasswordAction, link }, [
    m.mailResetPasswordOutro,
    ...otherWaysInParagraphs(otherWaysIn, m),
  ]);

function otherWaysInParagraphs({ passkeys, externalLogins }: OtherWaysInVariables, m: Messages): string[] {
  if (passkeys.length === 0 && externalLogins.length === 0) return [];
  const lines = [
    ...passkeys.map((passkey) => m.mailOtherWaysInPasskey({ name: passkey.name, added: utcMinute(passkey.createdAt) })),
    ...externalLogins.map((provider) => m.mailOtherWaysInProvider({ provider })),
  ];
  return [m.mailOtherWaysInIntro({ lines: lines.join('\n') }), m.mailOtherWaysInWarning];
}

const registrationNotice: MailTemplate<MailVariables['registrationNotice']> = ({ productName: product, messages: m }) =>
  wordsMail(product, m.mailRegistrationNoticeSubject, [m.mailRegistrationNoticeBody({ product }), m.mailRegistrationNoticeAdvice]);

const lockout: MailTemplate<MailVariables['lockout']> = ({ productName: product, until, messages: m }) =>
  wordsMail(product, m.mailLockoutSubject, [m.mailLockoutBody({ product, until: utcMinute(until) }), m.mailLockoutAdvice]);

/** The owner who did not link the provider learns of it while the link is new. */
const externalLinked: MailTemplate<MailVariables['externalLinked']> = ({ productName: product, provider, how, messages: m }) => {
  const why = how === 'email' ? m.mailExternalLinkedByEmail({ product, provider }) : m.mailExternalLinkedByProfile({ product, provider });
  return wordsMail(product, m.mailExternalLinkedSubject({ provider }), [`${why} ${m.mailExternalLinkedFromNowOn({ provider })}`, m.mailExternalLinkedAdvice({ provider })]);
};

const externalUnlinked: MailTemplate<MailVariables['externalUnlinked']> = ({ productName: product, provider, messages: m }) =>
  wordsMail(product, m.mailExternalUnlinkedSubject({ provider }), [m.mailExternalUnlinkedBody({ product, provider }), m.mailSomeoneSignedInAdvice]);

const passkeyAdded: MailTemplate<MailVariables['passkeyAdded']> = ({ productName: product, passkeyName, messages: m }) =>
  wordsMail(product, m.mailPasskeyAddedSubject, [m.mailPasskeyAddedBody({ product, passkeyName }), m.mailPasskeyAddedAdvice]);

const passkeyRemoved: MailTemplate<MailVariables['passkeyRemoved']> = ({ productName: product, passkeyName, messages: m }) =>
  wordsMail(product, m.mailPasskeyRemovedSubject, [m.mailPasskeyRemovedBody({ product, passkeyName }), m.mailSomeoneSignedInAdvice]);

const signInCode: MailTemplate<MailVariables['signInCode']> = ({ productName: product, code, messages: m }) =>
  wordsMail(product, m.mailSignInCodeSubject, [m.mailSignInCodeBody({ product, code }), m.mailSignInCodeAdvice]);

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
