import type { Config } from '../../config/config.ts';
import type { AccountLinks } from '../../identity/account-mail.ts';
import type { PasswordReset } from '../../identity/password-reset.ts';
import type { Registration } from '../../identity/registration.ts';
import type { PageRendering } from '../../pages/rendering.ts';

/** What registration, confirmation and reset use: their use cases, their pages, and where the redirects and the mails' links go. */
export interface RegistrationEndpointOptions {
  readonly config: Pick<Config, 'passwordMinLength'>;
  readonly pages: Pick<PageRendering, 'render' | 'language' | 'headersFor' | 'paths'>;
  /** The pages a successful form post is sent back to, with its status (`?status=sent`). */
  readonly paths: { readonly register: string; readonly resetPassword: string };
  /** The mails' links, absolute under `PUBLIC_URL`, leading back to these endpoints wherever they are mounted. */
  readonly links: AccountLinks;
  readonly registration: Pick<Registration, 'register' | 'confirmEmail' | 'resendConfirmation'>;
  readonly passwordReset: Pick<PasswordReset, 'requestReset' | 'reset'>;
}
