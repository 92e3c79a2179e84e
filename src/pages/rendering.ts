/**
 * The pages as an application configures them: the product name, the `<title>` template, a
 * stylesheet of its own, and any page's rendering or the layout replaced by its own function.
 * A route hands a page its data; the page's links come from the membership paths here, so a
 * replaced renderer gets them too and never writes a path itself.
 */
import { emailConfirmedLinks, emailConfirmedPage, type EmailConfirmedPageData, type EmailConfirmedPageModel } from './confirmation.ts';
import { resendConfirmationLinks, resendConfirmationPage, type ResendConfirmationPageData, type ResendConfirmationPageModel } from './confirmation.ts';
import { BUILT_IN_STYLES, defaultLayout, Html, pageHeaders } from './html.ts';
import { loginLinks, loginPage, type LoginPageData, type LoginPageModel } from './login.ts';
import { type LayoutRenderer, PAGE_HELPERS, type PageKit, type PageRenderer } from './page-kit.ts';
import type { PageScript } from './passkeys/passkey-markup.ts';
import { ACCOUNT_PATHS, type AccountPaths } from './paths.ts';
import { phoneLinks, phonePage, type PhonePageData, type PhonePageModel } from './phone.ts';
import { profileLinks, profilePage, type ProfilePageData, type ProfilePageModel } from './profile.ts';
import { errorLinks, errorPage, type ErrorPageData, type ErrorPageModel } from './refusals.ts';
import { externalLoginRefusedLinks, externalLoginRefusedPage, type ExternalLoginRefusedPageData, type ExternalLoginRefusedPageModel } from './refusals.ts';
import { registerLinks, registerPage, type RegisterPageData, type RegisterPageModel } from './register.ts';
import { registrationSentLinks, registrationSentPage, type RegistrationSentPageData, type RegistrationSentPageModel } from './register.ts';
import { forgotPasswordLinks, forgotPasswordPage, type ForgotPasswordPageData, type ForgotPasswordPageModel } from './reset-password.ts';
import { passwordResetDoneLinks, passwordResetDonePage, type PasswordResetDonePageData, type PasswordResetDonePageModel } from './reset-password.ts';
import { resetPasswordLinks, resetPasswordPage, type ResetPasswordPageData, type ResetPasswordPageModel } from './reset-password.ts';
import { invitationLinks, invitationPage, type InvitationPageData, type InvitationPageModel } from './invitation.ts';
import { organizationsLinks, organizationsPage, type OrganizationsPageData, type OrganizationsPageModel } from './organizations.ts';
import { authenticatorLinks, authenticatorPage, type AuthenticatorPageData, type AuthenticatorPageModel } from './two-factor.ts';
import { twoFactorLoginLinks, twoFactorLoginPage, type TwoFactorLoginPageData, type TwoFactorLoginPageModel } from './two-factor.ts';

/** Every page by name, with the model its renderer receives (its data and its links). */
export interface PageModels {
  readonly login: LoginPageModel;
  readonly register: RegisterPageModel;
  readonly registrationSent: RegistrationSentPageModel;
  readonly emailConfirmed: EmailConfirmedPageModel;
  readonly resendConfirmation: ResendConfirmationPageModel;
  readonly forgotPassword: ForgotPasswordPageModel;
  readonly resetPassword: ResetPasswordPageModel;
  readonly passwordResetDone: PasswordResetDonePageModel;
  readonly profile: ProfilePageModel;
  readonly twoFactorLogin: TwoFactorLoginPageModel;
  readonly authenticator: AuthenticatorPageModel;
  readonly phone: PhonePageModel;
  readonly error: ErrorPageModel;
  readonly externalLoginRefused: ExternalLoginRefusedPageModel;
  readonly organizations: OrganizationsPageModel;
  readonly invitation: InvitationPageModel;
}

/** What a route gives each page: its model without the links. */
export interface PageData {
  readonly login: LoginPageData;
  readonly register: RegisterPageData;
  readonly registrationSent: RegistrationSentPageData;
  readonly emailConfirmed: EmailConfirmedPageData;
  readonly resendConfirmation: ResendConfirmationPageData;
  readonly forgotPassword: ForgotPasswordPageData;
  readonly resetPassword: ResetPasswordPageData;
  readonly passwordResetDone: PasswordResetDonePageData;
  readonly profile: ProfilePageData;
  readonly twoFactorLogin: TwoFactorLoginPageData;
  readonly authenticator: AuthenticatorPageData;
  readonly phone: PhonePageData;
  readonly error: ErrorPageData;
  readonly externalLoginRefused: ExternalLoginRefusedPageData;
  readonly organizations: OrganizationsPageData;
  readonly invitation: InvitationPageData;
}

export type PageName = keyof PageModels;

export type PageRenderers = { readonly [Name in PageName]: PageRenderer<PageModels[Name]> };

/** A page's links from its data, where the pages live, and the passkey script when passkeys are on. */
type PageLinks = { readonly [Name in PageName]: (data: PageData[Name], paths: AccountPaths, script: PageScript | null) => PageModels[Name]['links'] };

const LINKS: PageLinks = {
  login: loginLinks,
  register: registerLinks,
  registrationSent: registrationSentLinks,
  emailConfirmed: emailConfirmedLinks,
  resendConfirmation: resendConfirmationLinks,
  forgotPassword: forgotPasswordLinks,
  resetPassword: resetPasswordLinks,
  passwordResetDone: passwordResetDoneLinks,
  profile: profileLinks,
  twoFactorLogin: twoFactorLoginLinks,
  authenticator: authenticatorLinks,
  phone: phoneLinks,
  error: errorLinks,
  externalLoginRefused: externalLoginRefusedLinks,
  organizations: organizationsLinks,
  invitation: invitationLinks,
};

/** The built-in renderers. */
export const DEFAULT_RENDERERS: PageRenderers = Object.freeze({
  login: loginPage,
  register: registerPage,
  registrationSent: registrationSentPage,
  emailConfirmed: emailConfirmedPage,
  resendConfirmation: resendConfirmationPage,
  forgotPassword: forgotPasswordPage,
  resetPassword: resetPasswordPage,
  passwordResetDone: passwordResetDonePage,
  profile: profilePage,
  twoFactorLogin: twoFactorLoginPage,
  authenticator: authenticatorPage,
  phone: phonePage,
  error: errorPage,
  externalLoginRefused: externalLoginRefusedPage,
  organizations: organizationsPage,
  invitation: invitationPage,
});

export interface PageOptions {
  /** The product the pages speak for, in every `<title>` by default. Default `Gatehouse`. */
  readonly productName?: string;
  /** The `<title>`, with `{page}` for the page's title and `{product}` for the product name. Default `{page} · {product}`. */
  readonly titleTemplate?: string;
  /**
   * A stylesheet of the application's, linked after the built-in styles so that its rules win:
   * a path on this origin (`/assets/site.css`) or an `https:` URL (`http:` too outside
   * production). The pages' Content-Security-Policy allows it (`'self'` or its origin).
   */
  readonly stylesheet?: string;
  /** False leaves the built-in styles out, so that the stylesheet alone styles the pages. Default true. */
  readonly builtInStyles?: boolean;
  /** The application's own rendering of any page: name → function of the page's model. */
  readonly renderers?: Partial<PageRenderers>;
  /** The application's own layout around every page. */
  readonly layout?: LayoutRenderer;
}

const DEFAULT_PRODUCT = 'Gatehouse';
const DEFAULT_TITLE = '{page} · {product}';

/** The pages of one service, with its options applied. */
export class PageRendering {
  /** Where the pages live: their links are built from these. */
  readonly paths: AccountPaths;
  private readonly renderers: PageRenderers;
  private readonly kit: PageKit;
  private readonly productName: string;
  private readonly titleTemplate: string;
  private readonly stylesheet: string | null;
  private readonly builtInStyles: boolean;
  private readonly layout: LayoutRenderer;
  /** The pages' security headers, their CSP allowing the stylesheet and `formTargets`. */
  readonly headers: Readonly<Record<string, string>>;
  /** The passkey script the login and profile pages load; null when passkeys are off. */
  readonly script: PageScript | null;
  /** `headers`, with the passkey script allowed: for the pages that load it. */
  private readonly scriptHeaders: Readonly<Record<string, string>>;

  constructor(
    options: PageOptions = {},
    settings: { readonly paths?: AccountPaths; readonly formTargets?: readonly string[]; readonly production?: boolean; readonly script?: PageScript | null } = {},
  ) {
    this.paths = settings.paths ?? ACCOUNT_PATHS;
    this.productName = options.productName ?? DEFAULT_PRODUCT;
    this.titleTemplate = options.titleTemplate ?? DEFAULT_TITLE;
    this.stylesheet = options.stylesheet === undefined ? null : checkedStylesheet(options.stylesheet, settings.production ?? false);
    this.builtInStyles = options.builtInStyles ?? true;
    this.renderers = { ...DEFAULT_RENDERERS, ...definedOnly(options.renderers ?? {}) };
    this.layout = options.layout ?? defaultLayout;
    this.kit = Object.freeze({ ...PAGE_HELPERS, defaults: DEFAULT_RENDERERS, defaultLayout });
    const styleSources = this.stylesheet === null ? [] : [styleSource(this.stylesheet)];
    this.headers = pageHeaders(settings.formTargets ?? [], styleSources);
    this.script = settings.script ?? null;
    this.scriptHeaders = pageHeaders(settings.formTargets ?? [], styleSources, { scripts: this.script !== null });
  }

  /**
   * The headers of `page`: scripts are allowed only on a page that loads the passkey script,
   * whichever renderer or layout put its element there; every other page keeps a policy without
   * any script.
   */
  headersFor(page: Html): Readonly<Record<string, string>> {
    return this.script !== null && page.markup.includes(`src="${this.script.src}"`) ? this.scriptHeaders : this.headers;
  }

  /** The whole page `name` for `data`, through the page's renderer and the layout. */
  render<Name extends PageName>(name: Name, data: PageData[Name]): Html {
    const links = (LINKS[name] as (data: PageData[Name], paths: AccountPaths, script: PageScript | null) => PageModels[Name]['links'])(data, this.paths, this.script);
    const model = { ...data, links } as unknown as PageModels[Name];
    const content = (this.renderers[name] as PageRenderer<PageModels[Name]>)(model, this.kit);
    if (content === null || typeof content !== 'object' || typeof content.title !== 'string' || !(content.main instanceof Html)) {
      throw new TypeError(`The renderer of the "${name}" page must return { title: string, main: Html } (build main with kit.html).`);
    }
    const page = this.layout(
      {
        title: content.title,
        documentTitle: this.titleTemplate.replaceAll('{page}', content.title).replaceAll('{product}', this.productName),
        productName: this.productName,
        builtInStyles: this.builtInStyles ? BUILT_IN_STYLES : Html.trusted(''),
        stylesheet: this.stylesheet,
        main: content.main,
      },
      this.kit,
    );
    if (!(page instanceof Html)) throw new TypeError('The page layout must return Html (build it with kit.html).');
    return page;
  }
}

/** A path on this origin, or an absolute https (http outside production) URL; anything else is a configuration error. */
function checkedStylesheet(value: string, production: boolean): string {
  if (/^\/(?![/\\])/.test(value)) return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`pages.stylesheet must be a path such as /assets/site.css or an https URL, not ${JSON.stringify(value)}.`);
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && !production)) return url.href;
  throw new TypeError(`pages.stylesheet must be a path or an https URL, not ${JSON.stringify(value)}.`);
}

/** Where the CSP lets the stylesheet come from: this origin for a path, else the URL's origin. */
function styleSource(stylesheet: string): string {
  return stylesheet.startsWith('/') ? "'self'" : new URL(stylesheet).origin;
}

/** A renderer given as `undefined` keeps the built-in one. */
function definedOnly(renderers: Partial<PageRenderers>): Partial<PageRenderers> {
  return Object.fromEntries(Object.entries(renderers).filter(([, render]) => render !== undefined)) as Partial<PageRenderers>;
}
