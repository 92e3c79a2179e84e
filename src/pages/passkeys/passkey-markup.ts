/**
 * The passkey parts of the login and profile pages. Their controls start `hidden` and the passkey
 * script shows them (the sign-in button and the add form only where the browser has WebAuthn), so
 * a page without script shows nothing that cannot work. The script finds what it needs through
 * `data-` attributes, URLs included: it builds no path itself.
 */
import type { Messages } from '../../i18n/messages.ts';
import { PASSKEY_NAME_MAX } from '../../identity/passkeys.ts';
import { html, type Html } from '../html.ts';
import { type AccountPaths, withQuery } from '../paths.ts';

/** The passkey script's `<script>` element: its URL names its content; `integrity` pins it. */
export interface PageScript {
  readonly src: string;
  readonly integrity: string;
}

/** A passkey as the profile lists it. Times are ISO-8601 UTC. */
export interface PasskeyView {
  /** The credential id (base64url), as the JSON routes name it. */
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  /** Synced by its provider to other devices (WebAuthn's backup state). */
  readonly backedUp: boolean;
}

/** Where the login page's passkey sign-in goes: the JSON routes, then the next page. */
export interface PasskeySignInLinks {
  readonly script: PageScript;
  readonly options: string;
  readonly signIn: string;
  /** After a sign-in: the ReturnUrl, or the profile. */
  readonly next: string;
  /** After a sign-in that needs a second factor: the second step, carrying the ReturnUrl. */
  readonly twoFactor: string;
}

/** What the profile's passkey controls call. */
export interface PasskeyManagementLinks {
  readonly script: PageScript;
  readonly options: string;
  readonly register: string;
  /** The profile, where the script goes after a change (with `?status=passkey-added` etc.). */
  readonly done: string;
  /** The rename (PATCH) and remove (DELETE) URL of each passkey, by credential id. */
  readonly passkeys: Readonly<Record<string, string>>;
}


export function passkeySignInLinks(script: PageScript | null, paths: AccountPaths, returnUrl: string | undefined): PasskeySignInLinks | null {
  if (script === null) return null;
  return {
    script,
    options: paths.loginPasskeyOptions,
    signIn: paths.loginPasskey,
    next: returnUrl ?? paths.profile,
    twoFactor: withQuery(paths.loginTwoFactor, 'ReturnUrl', returnUrl),
  };
}

export function passkeyManagementLinks(script: PageScript | null, paths: AccountPaths, passkeys: readonly PasskeyView[] | undefined): PasskeyManagementLinks | null {
  if (script === null || passkeys === undefined) return null;
  return {
    script,
    options: paths.passkeyOptions,
    register: paths.passkeys,
    done: paths.profile,
    passkeys: Object.fromEntries(passkeys.map(({ id }) => [id, paths.passkey(id)])),
  };
}

export function scriptElement(script: PageScript): Html {
  return html`<script src="${script.src}" integrity="${script.integrity}" defer></script>`;
}

/** The status line for the alert the script fills when something fails; focusable, so it is read out. */
function errorLine(id: string): Html {
  return html`<p id="${id}" class="error" role="alert" tabindex="-1" data-passkey-error hidden></p>`;
}

/** "Sign in with a passkey", for the login page; `rememberMe` is the id of the page's checkbox. */
export function passkeySignIn(links: PasskeySignInLinks, rememberMe: string, m: Messages): Html {
  return html`<section id="passkey-sign-in" aria-labelledby="passkey-sign-in-heading" hidden data-passkey-sign-in data-options="${links.options}" data-action="${links.signIn}" data-next="${links.next}" data-two-factor="${links.twoFactor}" data-remember-me="${rememberMe}">
<h2 id="passkey-sign-in-heading">${m.passkeysOrUse}</h2>
${errorLine('passkey-sign-in-error')}
<button type="button">${m.passkeysSignIn}</button>
</section>
${scriptElement(links.script)}`;
}

/** `2025-01-31 14:05 UTC`: the same for every reader, and exact in `datetime`. */
function timeOf(iso: string): Html {
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

function passkeyItem(passkey: PasskeyView, index: number, url: string, m: Messages): Html {
  const nameId = `passkey-${index}-name`;
  return html`<li class="passkey">
<strong class="passkey-name">${passkey.name}</strong>
<dl>
<dt>${m.passkeysCreated}</dt><dd>${timeOf(passkey.createdAt)}</dd>
<dt>${m.passkeysLastUsed}</dt><dd>${passkey.lastUsedAt === null ? m.passkeysNever : timeOf(passkey.lastUsedAt)}</dd>
<dt>${m.passkeysBackedUp}</dt><dd>${passkey.backedUp ? m.passkeysSynced : m.passkeysDeviceOnly}</dd>
</dl>
<form data-passkey-rename data-url="${url}" hidden>
<label for="${nameId}">${m.passkeysNewNameFor({ name: passkey.name })}</label>
<input id="${nameId}" name="name" type="text" value="${passkey.name}" maxlength="${PASSKEY_NAME_MAX}" autocomplete="off" required>
<button type="submit">${m.passkeysRename}</button>
</form>
<form data-passkey-remove data-url="${url}" hidden>
<button type="submit" aria-label="${m.passkeysRemoveNamed({ name: passkey.name })}">${m.passkeysRemove}</button>
</form>
</li>`;
}

/** The profile's passkeys: the list, each with rename and remove, and "Add a passkey". */
export function passkeysSection(passkeys: readonly PasskeyView[], links: PasskeyManagementLinks, m: Messages): Html {
  const list =
    passkeys.length === 0
      ? html`<p id="passkeys-none">${m.passkeysNone}</p>`
      : html`<ul id="passkey-list" class="gh-rows">${passkeys.map((passkey, index) => passkeyItem(passkey, index + 1, links.passkeys[passkey.id]!, m))}</ul>`;
  return html`<section id="passkeys" aria-labelledby="passkeys-heading" data-passkeys data-done="${links.done}">
<h2 id="passkeys-heading">${m.passkeysHeading}</h2>
${errorLine('passkeys-error')}
${list}
<form id="passkey-add" data-passkey-add data-options="${links.options}" data-action="${links.register}" hidden>
<label for="passkey-new-name">${m.passkeysNewName}</label>
<small id="passkey-new-name-hint">${m.passkeysNewNameHint}</small>
<input id="passkey-new-name" name="name" type="text" maxlength="${PASSKEY_NAME_MAX}" autocomplete="off" aria-describedby="passkey-new-name-hint">
<button type="submit">${m.passkeysAdd}</button>
</form>
<p data-passkey-unsupported hidden>${m.passkeysUnsupported}</p>
<noscript><p>${m.passkeysNeedScript}</p></noscript>
</section>
${scriptElement(links.script)}`;
}
