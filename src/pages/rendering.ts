/**
 * The pages as an application configures them: the product name, the `<title>` template, a
 * stylesheet of its own, a logo and an accent colour, and any page's rendering or the layout
 * replaced by its own function.
 * A route hands a page its data; the page's links come from the membership paths here, so a
 * replaced renderer gets them too and never writes a path itself.
 */
import { emailConfirmedLinks, emailConfirmedPage, type EmailConfirmedPageData, type EmailConfirmedPageModel } from './confirmation.ts';
import { resendConfirmationLinks, resendConfirmationPage, type ResendConfirmationPageData, type ResendConfirmationPageModel } from './confirmation.ts';
import { type AcceptLanguage, BUILT_IN_LANGUAGES, type Catalogues } from '../i18n/catalogue.ts';
import type { Messages } from '../i18n/messages.ts';
import { defaultLayout, Html, html, pageHeaders } from './html.ts';
import { loginLinks, loginPage, type LoginPageData, type LoginPageModel } from './login.ts';
import { type LayoutRenderer, PAGE_HELPERS, type PageKit, type PageRenderer } from './page-kit.ts';
import type { PageScript } from './passkeys/passkey-markup.ts';
import { ACCOUNT_PATHS, type AccountPaths } from './paths.ts';
import { checkedAccentColor, PAGE_ASSETS_FOLDER, type PageStylesheet, pageStylesheet } from './styles/page-stylesheet.ts';
import { phoneLinks, phonePage, type PhonePageData, type PhonePageModel } from './phone.ts';
import { profileLinks, profilePage, type ProfilePageData, type ProfilePageModel } from './profile.ts';
import { errorLinks, errorPage, type ErrorPageData, type ErrorPageModel } from './refusals.ts';
import { externalLoginRefusedLinks, externalLoginRefusedPage, type ExternalLoginRefusedPageData, type ExternalLoginRefusedPageModel } from './refusals.ts';
import { registerLinks, registerPage, type RegisterPageData, type RegisterPageModel } from './register.ts';
import { registrationSentLinks, registrationSentPage, type RegistrationSentPageData, type RegistrationSentPageModel } from './register.ts';
import { forgotPasswordLinks, forgotPasswordPage, type ForgotPasswordPageData, type ForgotPasswordPageModel } from './reset-password.ts';
import { passwordResetDoneLinks, passwordResetDonePage, type PasswordResetDonePageData, type PasswordResetDonePageModel } from './reset-password.ts';
import { resetPasswordLinks, resetPasswordPage, type ResetPasswordPageData, type ResetPasswordPageModel } from './reset-password.ts';
import { ADMIN_LINKS, ADMIN_RENDERERS, type AdminPageData, type AdminPageModels } from './admin/admin-pages.ts';
import { invitationLinks, invitationPage, type InvitationPageData, type InvitationPageModel } from './invitation.ts';
import { organizationsLinks, organizationsPage, type OrganizationsPageData, type OrganizationsPageModel } from './organizations.ts';
import { authenticatorLinks, authenticatorPage, type AuthenticatorPageData, type AuthenticatorPageModel } from './two-factor.ts';
import { twoFactorLoginLinks, twoFactorLoginPage, type TwoFactorLoginPageData, type TwoFactorLoginPageModel } from './two-factor.ts';

/** Every page by name, with the model its renderer receives (its data and its links); the admin console's too. */
export interface PageModels extends AdminPageModels {
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
export interface PageData extends AdminPageData {
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
  ...ADMIN_LINKS,
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
  ...ADMIN_RENDERERS,
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
  /** False leaves the built-in stylesheet out, so that the stylesheet alone styles the pages. Default true. */
  readonly builtInStyles?: boolean;
  /**
   * A logo for the pages' header, its text alternative the product name: a path on this origin or
   * an `https:` URL (`http:` too outside production), which the CSP's `img-src` then allows.
   */
  readonly logo?: string;
  /**
   * The built-in stylesheet's accent (buttons, links, focus), `#rrggbb`. It must carry white text
   * at 4.5:1 (WCAG 2.2 AA), or the start stops; the dark scheme gets a lighter shade of it.
   */
  readonly accentColor?: string;
  /** The application's own rendering of any page: name → function of the page's model. */
  readonly renderers?: Partial<PageRenderers>;
  /** The application's own layout around every page. */
  readonly layout?: LayoutRenderer;
  /**
   * Where an address is, for "Where you are signed in" on the profile ("Berlin, Germany"): the
   * application's own lookup, such as a GeoIP database it keeps (Gatehouse ships none). Asked once
   * per address each time the page is shown. Without it, or when it answers null or fails, the
   * list shows the address alone.
   */
  readonly locate?: LocateAddress;
}

/** The place of an IP address as a person reads it, or null when unknown. */
export type LocateAddress = (ip: string) => Promise<string | null> | string | null;

const DEFAULT_PRODUCT = 'Gatehouse';
const DEFAULT_TITLE = '{page} · {product}';

/** The pages of one service, with its options applied. */
export class PageRendering {
  /** Where the pages live: their links are built from these. */
  readonly paths: AccountPaths;
  private readonly renderers: PageRenderers;
  /** The helpers of each language, made once: the built-in ones and that language's messages. */
  private readonly kits = new Map<string, PageKit>();
  /** The service's languages: the pages' words come from the catalogue of the request's. */
  readonly catalogues: Catalogues;
  private readonly productName: string;
  private readonly titleTemplate: string;
  private readonly stylesheet: string | null;
  private readonly logo: string | null;
  /** The `<link>` of the built-in stylesheet, or nothing. */
  private readonly builtInStyles: Html;
  private readonly layout: LayoutRenderer;
  /** The built-in stylesheet for these options, which the service serves under the assets path; null when `builtInStyles` is false. */
  readonly builtInStylesheet: PageStylesheet | null;
  /** The application's `locate`, for the profile's sessions; null without one. */
  readonly locate: LocateAddress | null;
  /** The pages' security headers, their CSP allowing the stylesheet and `formTargets`. */
  readonly headers: Readonly<Record<string, string>>;
  /** The passkey script the login and profile pages load; null when passkeys are off. */
  readonly script: PageScript | null;
  /** `headers`, with the passkey script allowed: for the pages that load it. */
  private readonly scriptHeaders: Readonly<Record<string, string>>;

  /** `settings.assets` is where the service serves the built-in stylesheet (`<prefix>/account/assets/`): the `<link>` names the file there. */
  constructor(
    options: PageOptions = {},
    settings: {
      readonly paths?: AccountPaths;
      readonly formTargets?: readonly string[];
      readonly production?: boolean;
      readonly script?: PageScript | null;
      readonly assets?: string;
      readonly catalogues?: Catalogues;
    } = {},
  ) {
    const production = settings.production ?? false;
    this.paths = settings.paths ?? ACCOUNT_PATHS;
    this.productName = options.productName ?? DEFAULT_PRODUCT;
    this.titleTemplate = options.titleTemplate ?? DEFAULT_TITLE;
    this.stylesheet = options.stylesheet === undefined ? null : checkedUrl('pages.stylesheet', options.stylesheet, production, '/assets/site.css');
    this.logo = options.logo === undefined ? null : checkedUrl('pages.logo', options.logo, production, '/assets/logo.svg');
    this.builtInStylesheet = builtInStylesheet(options);
    this.builtInStyles = this.builtInStylesheet === null ? html`` : stylesheetLink(settings.assets ?? PAGE_ASSETS_FOLDER, this.builtInStylesheet);
    this.renderers = { ...DEFAULT_RENDERERS, ...definedOnly(options.renderers ?? {}) };
    this.layout = options.layout ?? defaultLayout;
    this.locate = checkedLocate(options.locate);
    this.catalogues = settings.catalogues ?? BUILT_IN_LANGUAGES;
    const styleSources = [...(this.builtInStylesheet === null ? [] : ["'self'"]), ...(this.stylesheet === null ? [] : [sourceOf(this.stylesheet)])];
    const imageSources = this.logo === null ? [] : [sourceOf(this.logo)];
    this.headers = pageHeaders(settings.formTargets ?? [], styleSources, { imageSources });
    this.script = settings.script ?? null;
    this.scriptHeaders = pageHeaders(settings.formTargets ?? [], styleSources, { scripts: this.script !== null, imageSources });
  }

  /**
   * The headers of `page`: scripts are allowed only on a page that loads the passkey script,
   * whichever renderer or layout put its element there; every other page keeps a policy without
   * any script.
   */
  headersFor(page: Html): Readonly<Record<string, string>> {
    return this.script !== null && page.markup.includes(`src="${this.script.src}"`) ? this.scriptHeaders : this.headers;
  }

  /** The language of a request with this `Accept-Language` (or the application's fixed one): for `render`. */
  language(acceptLanguage: AcceptLanguage): string {
    return this.catalogues.choose(acceptLanguage);
  }

  /** The texts of `language` (the default one's when it is not available): for the words a route hands a page, such as a notice. */
  messages(language: string): Messages {
    return this.kitOf(language).messages;
  }

  /** The whole page `name` for `data` in `language` (the default one when not given), through the page's renderer and the layout. */
  render<Name extends PageName>(name: Name, data: PageData[Name], language: string = this.catalogues.defaultLanguage): Html {
    const links = (LINKS[name] as (data: PageData[Name], paths: AccountPaths, script: PageScript | null) => PageModels[Name]['links'])(data, this.paths, this.script);
    const model = { ...data, links } as unknown as PageModels[Name];
    const kit = this.kitOf(language);
    const content = (this.renderers[name] as PageRenderer<PageModels[Name]>)(model, kit);
    if (content === null || typeof content !== 'object' || typeof content.title !== 'string' || !(content.main instanceof Html)) {
      throw new TypeError(`The renderer of the "${name}" page must return { title: string, main: Html } (build main with kit.html).`);
    }
    const page = this.layout(
      {
        name,
        language: kit.language,
        title: content.title,
        documentTitle: this.titleTemplate.replaceAll('{page}', content.title).replaceAll('{product}', this.productName),
        productName: this.productName,
        builtInStyles: this.builtInStyles,
        stylesheet: this.stylesheet,
        logo: this.logo,
        main: content.main,
      },
      kit,
    );
    if (!(page instanceof Html)) throw new TypeError('The page layout must return Html (build it with kit.html).');
    return page;
  }

  /** The kit of `language`, or of the default language when that one is not available. */
  private kitOf(language: string): PageKit {
    const tag = this.catalogues.availableOr(language);
    let kit = this.kits.get(tag);
    if (kit === undefined) {
      kit = Object.freeze({ ...PAGE_HELPERS, defaults: DEFAULT_RENDERERS, defaultLayout, language: tag, messages: this.catalogues.messages(tag) });
      this.kits.set(tag, kit);
    }
    return kit;
  }
}

/**
 * The option `name` (the stylesheet, the logo): a path on this origin, or an absolute https (http
 * outside production) URL; anything else is a configuration error.
 */
function checkedUrl(name: string, value: string, production: boolean, example: string): string {
  if (/^\/(?![/\\])/.test(value)) return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${name} must be a path such as ${example} or an https URL, not ${JSON.stringify(value)}.`);
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && !production)) return url.href;
  throw new TypeError(`${name} must be a path or an https URL, not ${JSON.stringify(value)}.`);
}

/** Where the CSP lets a stylesheet or an image come from: this origin for a path, else the URL's origin. */
function sourceOf(url: string): string {
  return url.startsWith('/') ? "'self'" : new URL(url).origin;
}

/** The built-in stylesheet with the accent (checked) applied; null without built-in styles, where an accent would colour nothing. */
function builtInStylesheet(options: PageOptions): PageStylesheet | null {
  const accent = options.accentColor === undefined ? null : checkedAccentColor(options.accentColor);
  if (options.builtInStyles === false) {
    if (accent !== null) throw new TypeError('pages.accentColor colours the built-in stylesheet, which pages.builtInStyles: false leaves out: set one of the two only.');
    return null;
  }
  return pageStylesheet(accent);
}

/** The built-in stylesheet's element: a file of this origin, its content pinned by `integrity`. */
function stylesheetLink(assets: string, stylesheet: PageStylesheet): Html {
  return html`<link rel="stylesheet" href="${assets}${stylesheet.fileName}" integrity="${stylesheet.integrity}">`;
}

function checkedLocate(locate: LocateAddress | undefined): LocateAddress | null {
  if (locate === undefined) return null;
  if (typeof locate !== 'function') throw new TypeError('pages.locate must be a function of an IP address.');
  return locate;
}

/** A renderer given as `undefined` keeps the built-in one. */
function definedOnly(renderers: Partial<PageRenderers>): Partial<PageRenderers> {
  return Object.fromEntries(Object.entries(renderers).filter(([, render]) => render !== undefined)) as Partial<PageRenderers>;
}
