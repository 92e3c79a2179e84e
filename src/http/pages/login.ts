import { checkbox, errorSummary, field, type FormErrors, postForm } from './forms.ts';
import { type Html, html, layout } from './html.ts';
import type { MembershipPaths } from '../membership-paths.ts';

export interface LoginPageModel {
  /** Where the membership routes are mounted: the form actions and links below. */
  readonly paths: MembershipPaths;
  readonly antiforgeryToken: string;
  /** Where a successful sign-in goes; kept only when it is a local path. */
  readonly returnUrl?: string;
  /** What the user typed as e-mail or user name, shown again after a failure. */
  readonly login?: string;
  readonly rememberMe?: boolean;
  readonly errors?: FormErrors;
  /** External providers, by route name (`/account/external-login/<name>`). */
  readonly providers?: readonly string[];
  readonly notice?: string;
}

/** `/account/login`: the cookie scheme's login page. */
export function loginPage(model: LoginPageModel): Html {
  const errors = model.errors ?? {};
  const { paths } = model;
  const action = paths.withReturnUrl(paths.login, model.returnUrl);
  const form = postForm(
    action,
    model.antiforgeryToken,
    html`${field({ name: 'email', label: 'E-mail or user name', value: model.login, autocomplete: 'username' }, errors)}
${field({ name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password' }, errors)}
${checkbox('rememberMe', 'Keep me signed in on this device', model.rememberMe)}`,
    'Sign in',
  );
  return layout(
    'Sign in',
    html`${model.notice ? html`<p class="notice" role="status">${model.notice}</p>` : ''}
${errorSummary(errors)}
${form}
${externalLogins(paths, model.providers ?? [], model.returnUrl)}
<nav><a href="${paths.register}">Create an account</a> <a href="${paths.resetPassword}">Forgot your password?</a></nav>`,
  );
}

function externalLogins(paths: MembershipPaths, providers: readonly string[], returnUrl: string | undefined): Html {
  if (providers.length === 0) return html``;
  const query = returnUrl ? `?returnUrl=${encodeURIComponent(returnUrl)}` : '';
  return html`<section aria-labelledby="external-heading"><h2 id="external-heading">Or sign in with</h2>
<ul>${providers.map((provider) => html`<li><a href="${paths.externalLogin(provider)}${query}">${provider}</a></li>`)}</ul></section>`;
}
