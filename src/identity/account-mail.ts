import { BUILT_IN_LANGUAGES, type Catalogues } from '../i18n/catalogue.ts';
import type { Messages } from '../i18n/messages.ts';
import { plainWords } from '../platform/mail/mail-parts.ts';
import { checkMailContent, checkProductName, type MailContent, MailTemplateError, type MailSecret } from '../platform/mail/mail-rules.ts';
import type { MailMessage } from '../platform/mail/mailer.ts';
import type { User } from '../store/ports.ts';
import {
  BUILT_IN_MAIL_TEMPLATES,
  DEFAULT_PRODUCT_NAME,
  MAIL_KIT,
  type MailName,
  type MailOptions,
  type MailTemplate,
  type MailTemplates,
  type MailVariables,
  type OtherWaysInVariables,
} from './mail-templates.ts';

/**
 * The mails of the membership flows (docs/reference/membership.md) and the invitation to an
 * organization, written so that people and programs can read them: a text part always, an HTML
 * part beside it. Each goes to the stored address (`user.email`), never to what someone typed.
 * `Mails` turns what a flow knows (a user, a code, where the pages live) into a template's
 * variables, renders the application's template or the built-in one (identity/mail-templates.ts),
 * and checks the result (platform/mail/mail-rules.ts): a mail with a link holds exactly that one
 * URL, a sign-in code is the only run of six digits in its text, subjects carry no code or link.
 */

/** A user a mail goes to; `language`, when known, is the one they last used here (their mails'). */
type Recipient = Pick<User, 'id' | 'email'> & Partial<Pick<User, 'language'>>;

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

/** The ways into an account besides its password, as the store lists them for a reset mail. */
export interface OtherWaysIn {
  readonly passkeys: readonly { readonly name: string; readonly createdAt: number }[];
  /** Providers' route names. */
  readonly externalLogins: readonly string[];
}

/** The product's name, the application's templates (`mails.templates`) and the service's languages. */
export interface MailsOptions extends MailOptions {
  /** @default 'Gatehouse' */
  readonly productName?: string;
  /** The catalogues the mails take their words from. @default English and German, English by default */
  readonly catalogues?: Catalogues;
}

/** Confirmation and reset codes are base64url (or any URL-safe token). */
const URL_SAFE_CODE = /^[A-Za-z0-9_-]+$/;
const SIGN_IN_CODE = /^\d{6}$/;
/** As long as a passkey's name may be. */
const NAME_MAX = 64;
/** An organization's name is a label: a mail shows its first words. */
const ORGANIZATION_NAME_MAX = 100;
const NOTICE: MailSecret = { kind: 'notice' };
const NO_OTHER_WAYS_IN: OtherWaysIn = { passkeys: [], externalLogins: [] };

/** Every mail Gatehouse sends, in the application's words where it gave a template. */
export class Mails {
  readonly productName: string;
  /** The service's languages: a mail is in its request's (`language` of each method), else the default one. */
  readonly catalogues: Catalogues;
  private readonly templates: MailTemplates;

  /** Renders each template once in each language with sample variables: one that breaks a rule stops the start, not a mail. */
  constructor(options: MailsOptions = {}) {
    this.productName = checkProductName(options.productName ?? DEFAULT_PRODUCT_NAME);
    this.catalogues = options.catalogues ?? BUILT_IN_LANGUAGES;
    const given = Object.entries(options.templates ?? {}).filter(([, template]) => template !== undefined);
    for (const [name, template] of given) {
      if (!Object.hasOwn(BUILT_IN_MAIL_TEMPLATES, name)) throw new TypeError(`mails.templates has no mail "${name}".`);
      if (typeof template !== 'function') throw new TypeError(`mails.templates.${name} must be a function of the mail's variables.`);
    }
    this.templates = { ...BUILT_IN_MAIL_TEMPLATES, ...Object.fromEntries(given) };
    // Every template, in every language: an application's catalogue can break a rule of a built-in template too.
    for (const name of Object.keys(this.templates)) this.renderSample(name as MailName);
  }

  confirmEmail(user: Recipient, code: string, links: AccountLinks, language?: string): MailMessage {
    const link = links.confirmEmail(user.id, urlSafe(code));
    return this.compose('confirmEmail', user, { link }, { kind: 'link', link, code }, language);
  }

  /**
   * Someone registered again with the address of an account not yet confirmed: a fresh link (the
   * older ones no longer work), and the news that the account's password did not change.
   */
  confirmEmailAgain(user: Recipient, code: string, links: AccountLinks, language?: string): MailMessage {
    const link = links.confirmEmail(user.id, urlSafe(code));
    return this.compose('confirmEmailAgain', user, { link }, { kind: 'link', link, code }, language);
  }

  /** The reset link, and every other way into the account (names as plain words). */
  resetPassword(user: Recipient, code: string, links: AccountLinks, others: OtherWaysIn = NO_OTHER_WAYS_IN, language?: string): MailMessage {
    const link = links.resetPassword(user.email, urlSafe(code));
    const otherWaysIn: OtherWaysInVariables = {
      passkeys: others.passkeys.map(({ name, createdAt }) => ({ name: plainWords(name, NAME_MAX), createdAt: new Date(createdAt) })),
      externalLogins: others.externalLogins.map((provider) => plainWords(provider, NAME_MAX)),
    };
    return this.compose('resetPassword', user, { link, otherWaysIn }, { kind: 'link', link, code }, language);
  }

  /** Someone tried to register with this address, which already has an account: no link, no code. */
  registrationNotice(user: Recipient, language?: string): MailMessage {
    return this.compose('registrationNotice', user, {}, NOTICE, language);
  }

  /** The account locked after too many failed sign-ins, until `until` (epoch ms). */
  lockout(user: Recipient, until: number): MailMessage {
    return this.compose('lockout', user, { until: new Date(until) }, NOTICE);
  }

  /** A provider's login was linked to the account: from the profile, or at a sign-in with the provider that asserted the address verified. */
  externalLinked(user: Recipient, provider: string, how: 'profile' | 'email'): MailMessage {
    return this.compose('externalLinked', user, { provider: plainWords(provider, NAME_MAX), how }, NOTICE);
  }

  /** A provider's login was unlinked: it signs in no more, and the sessions opened through it ended. */
  externalUnlinked(user: Recipient, provider: string): MailMessage {
    return this.compose('externalUnlinked', user, { provider: plainWords(provider, NAME_MAX) }, NOTICE);
  }

  /** A passkey was added: from now on it signs in to the account. Its owner (or a thief) chose its name. */
  passkeyAdded(user: Recipient, name: string): MailMessage {
    return this.compose('passkeyAdded', user, { passkeyName: plainWords(name, NAME_MAX) }, NOTICE);
  }

  /** A passkey was removed: it signs in no more, and every other session ended. */
  passkeyRemoved(user: Recipient, name: string): MailMessage {
    return this.compose('passkeyRemoved', user, { passkeyName: plainWords(name, NAME_MAX) }, NOTICE);
  }

  signInCode(user: Recipient, code: string, language?: string): MailMessage {
    if (!SIGN_IN_CODE.test(code)) throw new Error('A sign-in code is six digits.');
    return this.compose('signInCode', user, { code }, { kind: 'code', code }, language);
  }

  /** The text message of a sign-in code, in its recipient's language as a mail is: the code its only run of six digits. */
  signInCodeText(user: Recipient, code: string, language?: string): string {
    return this.messagesFor(user, language).smsSignInCode({ product: this.productName, code });
  }

  /** The text message that confirms a phone number, in its owner's language. */
  phoneConfirmationText(user: Recipient, code: string, language?: string): string {
    return this.messagesFor(user, language).smsConfirmPhone({ product: this.productName, code });
  }

  /** The invitation's one link (`code` inside it) to the invited address; whoever made the organization chose its name. */
  organizationInvitation(invitation: { email: string; organizationName: string; roles: readonly string[]; code: string; link: string }, language?: string): MailMessage {
    const { email, organizationName, roles, code, link } = invitation;
    const variables = { link, organizationName: plainWords(organizationName, ORGANIZATION_NAME_MAX).replace(/ {2,}/g, ' '), roles };
    return this.compose('organizationInvitation', { email }, variables, { kind: 'link', link, code }, language);
  }

  /**
   * The mail in its recipient's language: the one they last used here, else `language` (that of
   * the request that caused the mail), else the default. Their own language first, because the
   * request may be someone else's: an attacker whose wrong passwords lock the account, an admin.
   */
  private compose<Name extends MailName>(name: Name, to: Pick<Recipient, 'email' | 'language'>, variables: MailVariables[Name], secret: MailSecret, language?: string): MailMessage {
    return { to: to.email, ...this.render(name, variables, secret, to.language ?? language) };
  }

  private messagesFor(user: Pick<Recipient, 'language'>, language?: string): Messages {
    return this.catalogues.messages(this.catalogues.availableOr(user.language ?? language));
  }

  /** The template's mail, checked; a template that throws or breaks a rule is a MailTemplateError naming it. */
  private render<Name extends MailName>(name: Name, variables: MailVariables[Name], secret: MailSecret, language?: string): MailContent {
    const template = this.templates[name] as MailTemplate<MailVariables[Name]>;
    const tag = this.catalogues.availableOr(language);
    let content: unknown;
    try {
      content = template({ ...variables, productName: this.productName, language: tag, messages: this.catalogues.messages(tag) }, MAIL_KIT);
    } catch (error) {
      throw new MailTemplateError(`The "${name}" mail template failed.`, { cause: error });
    }
    return checkMailContent(name, content, secret);
  }

  /** In every language: a template (or a catalogue's text) that breaks a rule in one of them stops the start. */
  private renderSample(name: MailName): void {
    const { variables, secret } = SAMPLES[name];
    for (const language of this.catalogues.languages) this.render(name, variables as never, secret, language);
  }
}

const SAMPLE_CODE = 'c2FtcGxlLWNvZGUtb2YtdGhlLXN0YXJ0LWNoZWNr';
const SAMPLE_LINK = `https://gatehouse.invalid/account/confirm-email?userId=1&code=${SAMPLE_CODE}`;
const SAMPLE_LINKED = { variables: { link: SAMPLE_LINK }, secret: { kind: 'link', link: SAMPLE_LINK, code: SAMPLE_CODE } } as const;

/** What each template renders once at start: variables of the shape a real mail has. */
const SAMPLES: { readonly [Name in MailName]: { readonly variables: MailVariables[Name]; readonly secret: MailSecret } } = {
  confirmEmail: SAMPLE_LINKED,
  confirmEmailAgain: SAMPLE_LINKED,
  resetPassword: {
    variables: { link: SAMPLE_LINK, otherWaysIn: { passkeys: [{ name: 'Phone', createdAt: new Date(Date.UTC(2026, 0, 1)) }], externalLogins: ['acme'] } },
    secret: SAMPLE_LINKED.secret,
  },
  registrationNotice: { variables: {}, secret: NOTICE },
  lockout: { variables: { until: new Date(Date.UTC(2026, 0, 1, 0, 5)) }, secret: NOTICE },
  externalLinked: { variables: { provider: 'acme', how: 'email' }, secret: NOTICE },
  externalUnlinked: { variables: { provider: 'acme' }, secret: NOTICE },
  passkeyAdded: { variables: { passkeyName: 'Phone' }, secret: NOTICE },
  passkeyRemoved: { variables: { passkeyName: 'Phone' }, secret: NOTICE },
  signInCode: { variables: { code: '042917' }, secret: { kind: 'code', code: '042917' } },
  organizationInvitation: { variables: { link: SAMPLE_LINK, organizationName: 'Help Desk', roles: ['OrgMember'] }, secret: SAMPLE_LINKED.secret },
};

function urlSafe(code: string): string {
  if (!URL_SAFE_CODE.test(code)) throw new Error('An account code must be URL-safe (base64url).');
  return code;
}

/** The built-in mails under the default product name: for a tool or test that sends one without an instance. */
export const BUILT_IN_MAILS = new Mails();

export function confirmationMail(user: Recipient, code: string, links: AccountLinks): MailMessage {
  return BUILT_IN_MAILS.confirmEmail(user, code, links);
}

export function signInCodeMail(user: Recipient, code: string): MailMessage {
  return BUILT_IN_MAILS.signInCode(user, code);
}
