import { describe, expect, it } from 'vitest';
import { MembershipPaths } from '../endpoints/membership-paths.ts';
import { MailTemplateError } from '../platform/mail/mail-rules.ts';
import type { MailMessage } from '../platform/mail/mailer.ts';
import { sendNotice } from '../platform/mail/send-notice.ts';
import { Mails } from './account-mail.ts';
import { BUILT_IN_MAIL_TEMPLATES, type MailName } from './mail-templates.ts';

const user = { id: 42, email: 'ada@example.com' };
const links = MembershipPaths.ROOT.accountLinks(new URL('https://id.example.com/identity/'));
const CODE = 'Zm9vYmFyLWJhei1xdXV4_LTEyMzQ1Njc4OTAtYWJjZGVm';
const INVITATION_LINK = `https://id.example.com/identity/account/invitations/${CODE}`;
const HOSTILE = '<img src=x onerror="alert(1)"> https://evil.example/x www.evil.example 1234567\nSecond line';

/** Anything that looks like a link at all, http or not. */
const linkish = (text: string) => text.match(/[a-z][a-z0-9+.-]*:\/\/|www\./gi) ?? [];
const urls = (text: string) => text.match(/https?:\/\/[^\s"<>]+/g) ?? [];
const sixDigitRuns = (text: string) => text.match(/\d{6,}/g) ?? [];
const hrefs = (html: string) => [...html.matchAll(/\shref="([^"]*)"/g)].map((match) => match[1]!.replaceAll('&#38;', '&'));

/** Every mail there is, sent by `mails` with names of `name`'s choosing. */
function everyMail(mails: Mails, name = 'Phone'): Record<MailName, MailMessage> {
  return {
    confirmEmail: mails.confirmEmail(user, CODE, links),
    confirmEmailAgain: mails.confirmEmailAgain(user, CODE, links),
    resetPassword: mails.resetPassword(user, CODE, links, { passkeys: [{ name, createdAt: Date.UTC(2026, 0, 2, 3, 4) }], externalLogins: ['acme'] }),
    registrationNotice: mails.registrationNotice(user),
    lockout: mails.lockout(user, Date.UTC(2026, 0, 2, 3, 4, 59)),
    externalLinked: mails.externalLinked(user, 'acme', 'email'),
    externalUnlinked: mails.externalUnlinked(user, 'acme'),
    passkeyAdded: mails.passkeyAdded(user, name),
    passkeyRemoved: mails.passkeyRemoved(user, name),
    signInCode: mails.signInCode(user, '042917'),
    organizationInvitation: mails.organizationInvitation({ email: user.email, organizationName: name, roles: ['OrgMember'], code: CODE, link: INVITATION_LINK }),
  };
}

const LINK_MAILS: readonly MailName[] = ['confirmEmail', 'confirmEmailAgain', 'resetPassword', 'organizationInvitation'];

describe('the built-in templates', () => {
  const acme = new Mails({ productName: 'Acme ID' });
  const mails = everyMail(acme);

  it('cover every mail', () => {
    expect(Object.keys(mails).sort()).toEqual(Object.keys(BUILT_IN_MAIL_TEMPLATES).sort());
  });

  it.each(Object.keys(BUILT_IN_MAIL_TEMPLATES) as MailName[])('%s names the product in both parts, and never Gatehouse', (name) => {
    const mail = mails[name];
    expect(mail.to).toBe(user.email);
    expect(mail.text).toContain('Acme ID');
    expect(mail.html).toContain('Acme ID');
    expect(mail.html).toMatch(/^<!doctype html>/);
    for (const part of [mail.subject, mail.text, mail.html!]) expect(part).not.toMatch(/gatehouse/i);
  });

  it.each(LINK_MAILS)('%s holds exactly one URL under the prefix, in the text and as the one href of its HTML', (name) => {
    const mail = mails[name];
    expect(linkish(mail.text)).toHaveLength(1);
    const [link] = urls(mail.text);
    expect(new URL(link!).pathname.startsWith('/identity/account/')).toBe(true);
    expect(hrefs(mail.html!)).toEqual([link]);
    expect(mail.subject).not.toContain(CODE);
    expect(linkish(mail.subject)).toEqual([]);
  });

  it('puts the sign-in code in the text as its only run of six digits, and nowhere in the subject', () => {
    const mail = mails.signInCode;
    expect(mail.text).toContain('Your Acme ID sign-in code is 042917.');
    expect(sixDigitRuns(mail.text)).toEqual(['042917']);
    expect(mail.subject).not.toMatch(/\d/);
    expect(hrefs(mail.html!)).toEqual([]);
  });

  it.each(['registrationNotice', 'lockout', 'externalLinked', 'externalUnlinked', 'passkeyAdded', 'passkeyRemoved'] as MailName[])(
    'the notice %s holds no link and no code',
    (name) => {
      const mail = mails[name];
      expect(linkish(mail.text)).toEqual([]);
      expect(linkish(mail.html!)).toEqual([]);
      expect(sixDigitRuns(mail.text)).toEqual([]);
    },
  );

  it('keep the default product’s words: "your Gatehouse account"', () => {
    const mail = new Mails().lockout(user, Date.UTC(2026, 0, 2, 3, 4));
    expect(mail.text).toBe(
      'Hello,\n\nYour Gatehouse account was locked after too many failed sign-in attempts. You can sign in again after 2026-01-02 03:04 UTC.\n\n' +
        'If these attempts were not yours, someone may know or be guessing your password: consider changing it once you are signed in.\n',
    );
  });
});

describe('names chosen by users', () => {
  const mails = everyMail(new Mails(), HOSTILE);

  it('reach the text as plain words on one line: no link, no markup, no code, no second line', () => {
    for (const name of ['passkeyAdded', 'passkeyRemoved'] as const) {
      const { text } = mails[name];
      expect(linkish(text)).toEqual([]);
      expect(sixDigitRuns(text)).toEqual([]);
      expect(text).not.toMatch(/[<>]/);
      expect(text).toMatch(/named "img src x onerror +alert\(1\) +https +evil example x www evil ex"/);
    }
    // Six digits in a row would pass for a code; a name is one line of at most 64 characters.
    expect(new Mails().passkeyAdded(user, 'Key 1234567\nSecond line').text).toContain('named "Key 123 456 7 Second line"');
    for (const name of ['resetPassword', 'organizationInvitation'] as const) expect(linkish(mails[name].text)).toHaveLength(1);
  });

  it('are escaped in the HTML, which keeps its one link', () => {
    const invitation = new Mails().organizationInvitation({ email: user.email, organizationName: 'Help Desk <b> & "Co"', roles: [], code: CODE, link: INVITATION_LINK });
    expect(invitation.text).toContain('the organization "Help Desk b & Co" on Gatehouse with the roles none.');
    expect(invitation.html).toContain('Help Desk b &#38; Co');
    expect(invitation.html).not.toContain('<b>');
    for (const mail of Object.values(mails)) {
      expect(mail.html).not.toMatch(/<img|onerror="/);
      expect(hrefs(mail.html!).length).toBeLessThanOrEqual(1);
    }
  });
});

describe('the product name', () => {
  it('is escaped in the HTML and written as it is in the text', () => {
    const mail = new Mails({ productName: 'Acme <b>"ID"</b> & Co' }).signInCode(user, '042917');
    expect(mail.text).toContain('Your Acme <b>"ID"</b> & Co sign-in code is 042917.');
    expect(mail.html).toContain('Acme &#60;b&#62;&#34;ID&#34;&#60;/b&#62; &#38; Co');
    expect(mail.html).not.toContain('<b>');
  });

  it.each(['', '  ', 'Acme\nBcc: eve@example.com', 'Acme https://evil.example', 'www.acme.example', 'Acme 123456', 'A'.repeat(101)])('refuses %j', (productName) => {
    expect(() => new Mails({ productName })).toThrow(/pages\.productName names the product in every mail/);
  });
});

describe('an application’s templates', () => {
  it('replace the built-in ones, with the variables and the product name, and may wrap the defaults', () => {
    const mails = new Mails({
      productName: 'Acme ID',
      templates: {
        confirmEmail: ({ link, productName }) => ({ subject: `Welcome to ${productName}`, text: `Confirm here:\n${link}\n` }),
        passkeyAdded: (variables, kit) => ({ ...kit.defaults.passkeyAdded(variables, kit), subject: `New passkey: ${variables.passkeyName}` }),
        lockout: ({ productName, until }, kit) => ({ subject: 'Locked', ...kit.parts({ productName, subject: 'Locked', paragraphs: [`Until ${until.toISOString()}.`] }) }),
      },
    });
    const confirm = mails.confirmEmail(user, CODE, links);
    expect(confirm).toEqual({ to: user.email, subject: 'Welcome to Acme ID', text: `Confirm here:\n${links.confirmEmail(42, CODE)}\n` });
    const added = mails.passkeyAdded(user, 'Phone<b>');
    expect(added.subject).toBe('New passkey: Phone b');
    expect(added.text).toContain('A passkey named "Phone b" was added to your Acme ID account.');
    expect(mails.lockout(user, Date.UTC(2026, 0, 2)).text).toBe('Hello,\n\nUntil 2026-01-02T00:00:00.000Z.\n');
    // The others stay built in.
    expect(mails.registrationNotice(user).text).toContain('tried to register at Acme ID');
  });

  it('that break a rule are refused when the mails are made, by the template’s name and the rule', () => {
    const refused: [string, Partial<ConstructorParameters<typeof Mails>[0] & object>['templates'], RegExp][] = [
      ['a line break in the subject', { confirmEmail: ({ link }) => ({ subject: 'Confirm\r\nBcc: eve@example.com', text: link }) }, /"confirmEmail".*line break/],
      ['the link in the subject', { resetPassword: ({ link }) => ({ subject: `Reset: ${link}`, text: link }) }, /"resetPassword".*subject with a link/],
      ['the code in the subject', { signInCode: ({ code }) => ({ subject: `Code ${code}`, text: `Code ${code}` }) }, /"signInCode".*subject with a link or a code/],
      ['no link in the text', { confirmEmail: () => ({ subject: 'Confirm', text: 'Go to your profile.' }) }, /"confirmEmail".*only URL of its text/],
      ['a second URL in the text', { confirmEmail: ({ link }) => ({ subject: 'Confirm', text: `${link}\nhttps://acme.example/help` }) }, /only URL of its text/],
      ['the link glued to other words', { confirmEmail: ({ link }) => ({ subject: 'Confirm', text: `${link}&extra=1` }) }, /only URL of its text/],
      [
        'a second href in the HTML',
        { confirmEmail: ({ link }) => ({ subject: 'Confirm', text: link, html: `<a href="${link}">Confirm</a> <a href="https://acme.example">Acme</a>` }) },
        /only href of its HTML/,
      ],
      ['a link in a notice', { lockout: () => ({ subject: 'Locked', text: 'See https://acme.example/help' }) }, /"lockout".*text with a link/],
      ['an href in a notice’s HTML', { passkeyRemoved: () => ({ subject: 'Removed', text: 'Removed.', html: '<a href="/profile">Profile</a>' }) }, /HTML with a link/],
      ['six digits in a notice', { registrationNotice: () => ({ subject: 'Notice', text: 'Call 0800 123456.' }) }, /notices hold no code/],
      ['no code in the text', { signInCode: () => ({ subject: 'Code', text: 'Your code is on its way.' }) }, /only run of six digits/],
      ['a second run of six digits', { signInCode: ({ code }) => ({ subject: 'Code', text: `${code} (ticket 987654)` }) }, /only run of six digits/],
      ['no text', { confirmEmail: ({ link }) => ({ subject: 'Confirm', text: ' ', html: `<a href="${link}">x</a>` }) }, /not empty/],
      ['not a mail', { confirmEmail: () => 'Confirm' as never }, /must return \{ subject, text, html\? \}/],
      ['a template that throws', { lockout: () => { throw new Error('no until'); } }, /"lockout" mail template failed/],
    ];
    for (const [what, templates, message] of refused) {
      const made = () => new Mails({ templates });
      expect(made, what).toThrow(MailTemplateError);
      expect(made, what).toThrow(message);
    }
  });

  it('that are not functions are refused', () => {
    expect(() => new Mails({ templates: { lockout: 'Locked' as never } })).toThrow('mails.templates.lockout must be a function');
  });

  it('are checked at every mail too: one that breaks a rule for some variables fails that mail, and a notice’s failure is only logged', async () => {
    const mails = new Mails({
      templates: {
        passkeyAdded: ({ passkeyName }) => ({ subject: passkeyName === 'Phone' ? 'A passkey' : `${passkeyName}\nBcc: eve@example.com`, text: 'Added.' }),
      },
    });
    expect(mails.passkeyAdded(user, 'Phone').subject).toBe('A passkey');
    expect(() => mails.passkeyAdded(user, 'Laptop')).toThrow(/"passkeyAdded".*line break/);

    const sent: MailMessage[] = [];
    const errors: unknown[] = [];
    const mailer = { send: async (message: MailMessage) => void sent.push(message) };
    await sendNotice(mailer, { error: (...args: unknown[]) => void errors.push(args) }, () => mails.passkeyAdded(user, 'Laptop'));
    expect(sent).toEqual([]);
    expect(errors).toEqual([[{ err: expect.any(MailTemplateError), subject: undefined }, 'could not send a mail']]);
  });
});
