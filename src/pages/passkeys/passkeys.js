// Passkeys on the account pages: "Sign in with a passkey" on the login page; adding, renaming
// and removing passkeys on the profile. Served by the service after @simplewebauthn/browser's
// build, whose functions are on `SimpleWebAuthnBrowser`. The pages write every URL this script
// uses into data attributes, so the script builds no path itself. The controls are hidden in the
// markup and shown here, so a browser without script (or without WebAuthn) shows none that
// cannot work.
//
// The requests are same-origin fetches with JSON bodies: the browser sends this page's Origin,
// which the cross-site check of cookie-authenticated requests compares with PUBLIC_URL's, and
// JSON bodies need no antiforgery field (a cross-site page cannot send one without a CORS
// preflight).

(function () {
  'use strict';
  var webAuthn = window.SimpleWebAuthnBrowser;
  if (!webAuthn) return;

  /** POSTs (or PATCHes, DELETEs) `body` as JSON; resolves to { status, data } whatever the status. */
  function send(method, url, body) {
    var init = { method: method, credentials: 'same-origin', headers: { accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(url, init).then(function (response) {
      return response.text().then(function (text) {
        var data = null;
        try {
          data = text ? JSON.parse(text) : null;
        } catch (ignored) {
          data = null;
        }
        return { status: response.status, data: data };
      });
    });
  }

  /** Only a path on this origin is ever followed (the page wrote it; this is a second look). */
  function go(url) {
    if (/^\/(?![\/\\])/.test(url)) window.location.assign(url);
  }

  function showError(element, message) {
    element.textContent = message;
    element.hidden = false;
    element.focus();
  }

  /** Why the browser's passkey prompt failed, in words for the person in front of it. */
  function browserFailure(error) {
    var name = error && error.name;
    if (name === 'NotAllowedError') return 'The passkey prompt was closed or timed out. Try again when you are ready.';
    if (name === 'InvalidStateError') return 'This device already holds a passkey for this account.';
    if (name === 'SecurityError') return 'This site cannot use passkeys at this address.';
    return 'This browser could not use a passkey (' + (error && error.message ? error.message : 'unknown error') + ').';
  }

  /** Why the service refused, from its answer (a sign-in result or problem+json). */
  function serviceFailure(answer, fallback) {
    var data = answer.data || {};
    if (answer.status === 429) return 'Too many attempts. Wait a minute and try again.';
    if (data.isLockedOut) return 'This account is locked for a while after too many failed attempts.';
    if (data.isNotAllowed) return 'Confirm your e-mail address before signing in: follow the link in the mail we sent.';
    if (answer.status === 401 && data.succeeded === false) return 'That passkey did not sign you in.';
    if (answer.status === 401) return 'You are signed out. Reload the page and sign in again.';
    // Adding a passkey needs a recent sign-in: the service says so in words, and how to get one.
    if (data.code === 'GH_REAUTHENTICATION_REQUIRED') return 'For your safety, sign in again (sign out is not needed), then add the passkey.';
    if (answer.status === 403) return 'This page could not prove it came from this site. Reload it and try again.';
    return data.detail || fallback;
  }

  function setBusy(button, busy) {
    button.disabled = busy;
    if (busy) button.setAttribute('aria-busy', 'true');
    else button.removeAttribute('aria-busy');
  }

  // The login page: options, the authenticator, the sign-in, then the next page.
  function signIn(section) {
    var button = section.querySelector('button');
    var error = section.querySelector('[data-passkey-error]');
    var remember = section.dataset.rememberMe ? document.getElementById(section.dataset.rememberMe) : null;
    button.addEventListener('click', function () {
      error.hidden = true;
      setBusy(button, true);
      send('POST', section.dataset.options, {})
        .then(function (options) {
          if (options.status !== 200) throw { service: options };
          return webAuthn.startAuthentication({ optionsJSON: options.data }).catch(function (failure) {
            throw { browser: failure };
          });
        })
        .then(function (response) {
          return send('POST', section.dataset.action, { response: response, rememberMe: remember !== null && remember.checked });
        })
        .then(function (result) {
          if (result.status === 200 && result.data && result.data.succeeded) return go(section.dataset.next);
          if (result.status === 200 && result.data && result.data.requiresTwoFactor) return go(section.dataset.twoFactor);
          throw { service: result };
        })
        .catch(function (failure) {
          setBusy(button, false);
          showError(error, failure.browser ? browserFailure(failure.browser) : serviceFailure(failure.service || {}, 'The sign-in did not work. Try again.'));
        });
    });
    if (webAuthn.browserSupportsWebAuthn()) section.hidden = false;
  }

  // The profile's passkeys: add (options, the authenticator, the registration), rename, remove.
  function manage(section) {
    var error = section.querySelector('[data-passkey-error]');
    var done = function (status) {
      go(section.dataset.done + '?status=' + status);
    };
    var fail = function (button, fallback) {
      return function (failure) {
        setBusy(button, false);
        showError(error, failure.browser ? browserFailure(failure.browser) : serviceFailure(failure.service || {}, fallback));
      };
    };

    var add = section.querySelector('[data-passkey-add]');
    if (add !== null) {
      add.addEventListener('submit', function (event) {
        event.preventDefault();
        var button = add.querySelector('button');
        var name = add.elements.name.value.trim();
        var named = name === '' ? {} : { name: name };
        error.hidden = true;
        setBusy(button, true);
        send('POST', add.dataset.options, named)
          .then(function (options) {
            if (options.status !== 200) throw { service: options };
            return webAuthn.startRegistration({ optionsJSON: options.data }).catch(function (failure) {
              throw { browser: failure };
            });
          })
          .then(function (response) {
            return send('POST', add.dataset.action, Object.assign({ response: response }, named));
          })
          .then(function (result) {
            if (result.status !== 201) throw { service: result };
            done('passkey-added');
          })
          .catch(fail(button, 'The passkey could not be added.'));
      });
      if (webAuthn.browserSupportsWebAuthn()) add.hidden = false;
      else section.querySelector('[data-passkey-unsupported]').hidden = false;
    }

    section.querySelectorAll('[data-passkey-rename]').forEach(function (form) {
      form.addEventListener('submit', function (event) {
        event.preventDefault();
        var button = form.querySelector('button');
        error.hidden = true;
        setBusy(button, true);
        send('PATCH', form.dataset.url, { name: form.elements.name.value.trim() })
          .then(function (result) {
            if (result.status !== 204) throw { service: result };
            done('passkey-renamed');
          })
          .catch(fail(button, 'The passkey could not be renamed.'));
      });
      form.hidden = false;
    });

    section.querySelectorAll('[data-passkey-remove]').forEach(function (form) {
      form.addEventListener('submit', function (event) {
        event.preventDefault();
        var button = form.querySelector('button');
        error.hidden = true;
        setBusy(button, true);
        send('DELETE', form.dataset.url)
          .then(function (result) {
            if (result.status !== 204) throw { service: result };
            done('passkey-removed');
          })
          .catch(fail(button, 'The passkey could not be removed.'));
      });
      form.hidden = false;
    });
  }

  document.querySelectorAll('[data-passkey-sign-in]').forEach(signIn);
  document.querySelectorAll('[data-passkeys]').forEach(manage);
})();
