import { describe, expect, it } from 'vitest';
import { Mails } from '../identity/account-mail.ts';
import { PageRendering } from '../pages/rendering.ts';
import { BUILT_IN_CATALOGUES, Catalogues, MESSAGE_KEYS, missingKeys } from './catalogue.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import type { Messages } from './messages.ts';

/** A text of the catalogue with sample variables: a function's answer, else the text. */
function sample(catalogue: Messages, key: keyof Messages): string {
  const message = catalogue[key] as string | ((v: Record<string, unknown>) => string);
  if (typeof message === 'string') return message;
  return message({ product: 'Acme', provider: 'acme', passkeyName: 'Phone', name: 'Phone', added: '2026-01-01 00:05 UTC', until: '2026-01-01 00:05 UTC', lines: '- x', code: '042917', organization: 'Help Desk', roles: ['OrgMember'], minLength: 8, link: 'the log', email: 'ann@example.com', total: 12, query: 'ann', page: 2, pageCount: 3, role: 'Editor', type: 'user.locked', userId: 7, client: 'reporting', kid: 'k1', maxLength: 128, minutes: 5, undeclared: ['Billing'], declared: ['OrgOwner', 'OrgAdmin', 'OrgMember'], max: 64 });
}

describe('the built-in catalogues', () => {
  it.each(Object.entries(BUILT_IN_CATALOGUES))('%s has every key, none empty', (_tag, catalogue) => {
    expect(missingKeys(catalogue)).toEqual([]);
    expect(Object.keys(catalogue).sort()).toEqual([...MESSAGE_KEYS].sort());
    for (const key of MESSAGE_KEYS) expect(sample(catalogue, key).trim(), key).not.toBe('');
  });

  it('German differs from English nearly everywhere: a copied English text is caught', () => {
    const same = MESSAGE_KEYS.filter((key) => sample(de, key) === sample(en, key));
    // Only texts that are the same words in both languages may stay (none today).
    expect(same).toEqual([]);
  });

  it("German mails hold no run of six digits of their own, so that a sign-in code stays the only one in its mail", () => {
    const mailTexts = MESSAGE_KEYS.filter((name) => name.startsWith('mail') && name !== 'mailSignInCodeBody');
    for (const key of mailTexts) expect(sample(de, key), key).not.toMatch(/\d{6}/);
  });
});

describe('choosing a language', () => {
  const catalogues = new Catalogues();

  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['de', 'de'],
    ['de-CH;q=0.9, en;q=0.8', 'de'],
    ['fr', 'en'],
    ['fr, de;q=0.5', 'de'],
    ['en-GB, de;q=0.9', 'en'],
    ['*', 'en'],
  ])('Accept-Language %j is %s', (header, language) => {
    expect(catalogues.choose(header)).toBe(language);
  });

  it("the application's fixed language wins over the header", () => {
    expect(new Catalogues({ fixedLanguage: 'de' }).choose('en')).toBe('de');
  });

  it('the default language answers when the header names none available', () => {
    expect(new Catalogues({ defaultLanguage: 'de' }).choose('fr')).toBe('de');
  });
});

describe("the application's catalogues", () => {
  it('overrides one key of a built-in language and keeps the others', () => {
    const catalogues = new Catalogues({ languages: { en: { loginTitle: 'Welcome back' } } });
    expect(catalogues.messages('en').loginTitle).toBe('Welcome back');
    expect(catalogues.messages('en').loginSubmit).toBe('Sign in');
  });

  it('adds a language with every key', () => {
    const catalogues = new Catalogues({ languages: { fr: { ...en, loginTitle: 'Se connecter' } } });
    expect(catalogues.choose('fr-FR')).toBe('fr');
    expect(catalogues.messages('fr').loginTitle).toBe('Se connecter');
  });

  it('refuses a language added without every key, naming the missing ones', () => {
    expect(() => new Catalogues({ languages: { fr: { loginTitle: 'Se connecter' } } })).toThrow(/i18n\.languages\.fr adds a language without the keys .*loginSubmit/);
  });

  it('refuses an unknown key, a text where a function belongs, an empty text, a bad tag and an unavailable default', () => {
    expect(() => new Catalogues({ languages: { en: { loginTitel: 'x' } as never } })).toThrow(/has no message "loginTitel"/);
    expect(() => new Catalogues({ languages: { en: { registerPasswordHint: 'x' } as never } })).toThrow(/must be a function/);
    expect(() => new Catalogues({ languages: { de: { loginTitle: ' ' } } })).toThrow(/not empty/);
    expect(() => new Catalogues({ languages: { 'not a tag': en } })).toThrow(/not a language tag/);
    expect(() => new Catalogues({ fixedLanguage: 'fr' })).toThrow(/i18n\.fixedLanguage is "fr", which has no catalogue/);
  });
});

describe('the mails in each language', () => {
  it('writes a German sign-in code mail that keeps the rules: the code its only six digits', () => {
    const mail = new Mails().signInCode({ id: 1, email: 'a@example.com' }, '042917', 'de');
    expect(mail.subject).toBe('Ihr Anmeldecode');
    expect(mail.text).toContain('Ihr Anmeldecode für Gatehouse lautet 042917.');
    expect(mail.text.match(/\d{6}/g)).toEqual(['042917']);
  });

  it("writes a text message in the recipient's language, else the request's, naming the product", () => {
    const mails = new Mails({ productName: 'Acme ID' });
    expect(mails.phoneConfirmationText({ id: 1, email: 'a@example.com', language: null }, '042917', 'de')).toBe('Ihr Code für Acme ID zur Bestätigung dieser Telefonnummer lautet 042917.');
    expect(mails.signInCodeText({ id: 1, email: 'a@example.com', language: 'en' }, '042917', 'de')).toBe('Your Acme ID sign-in code is 042917. It works once, for five minutes.');
    expect(mails.signInCodeText({ id: 1, email: 'a@example.com', language: 'de' }, '042917').match(/\d{6}/g)).toEqual(['042917']);
  });

  it("stops the start when an application's text breaks a mail rule", () => {
    const catalogues = new Catalogues({ languages: { en: { mailLockoutAdvice: 'Call us at 555123 if this was not you.' } } });
    expect(() => new Mails({ catalogues })).toThrow(/"lockout" mail template/);
  });
});

describe('the pages in each language', () => {
  it('renders a page in the language asked for, its <html lang> too, and the default one otherwise', () => {
    const pages = new PageRendering();
    const german = pages.render('login', { antiforgeryToken: 't' }, 'de').toString();
    expect(german).toContain('<html lang="de">');
    expect(german).toContain('<h1>Anmelden</h1>');
    expect(pages.render('login', { antiforgeryToken: 't' }, 'fr').toString()).toContain('<html lang="en">');
  });

  it("gives a renderer of the application's the request's texts and language in the kit", () => {
    const pages = new PageRendering(
      { renderers: { login: (_model, kit) => ({ title: kit.messages.loginTitle, main: kit.html`<p>${kit.language}</p>` }) } },
      { catalogues: new Catalogues({ languages: { de: { loginTitle: 'Willkommen' } } }) },
    );
    const page = pages.render('login', { antiforgeryToken: 't' }, pages.language('de-AT')).toString();
    expect(page).toContain('<h1>Willkommen</h1>');
    expect(page).toContain('<p>de</p>');
  });
});
