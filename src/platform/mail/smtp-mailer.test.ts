import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSmtpServer, type TestSmtpServer } from '../../../test/helpers/smtp.ts';
import { MailDeliveryError } from './mail-delivery-error.ts';
import { SmtpMailer } from './smtp-mailer.ts';

const USER = 'gatehouse-mailer';
// A password with characters that must be URL-encoded in SMTP_URL.
const PASSWORD = 'p@ss:w/rd%-5ecret';
const PUBLIC_URL = new URL('https://id.example.com/');

describe('SmtpMailer through a real SMTP server', () => {
  let smtp: TestSmtpServer;
  const mailers: SmtpMailer[] = [];
  const mailer = (smtpUrl: string, timeoutMs?: number) => {
    const created = new SmtpMailer({ smtpUrl: new URL(smtpUrl), publicUrl: PUBLIC_URL, ...(timeoutMs ? { timeoutMs } : {}) });
    mailers.push(created);
    return created;
  };

  beforeEach(async () => {
    smtp = await startSmtpServer({ user: USER, password: PASSWORD });
  });
  afterEach(async () => {
    await Promise.all(mailers.splice(0).map((created) => created.close()));
    await smtp.close();
  });

  it('delivers to the one recipient with the subject, a text/plain part, the HTML part, signed in with the URL’s credentials', async () => {
    await mailer(smtp.url).send({ to: 'ada@example.com', subject: 'Confirm your e-mail', text: 'Plain words.', html: '<p>Rich words.</p>' });
    const mail = await smtp.waitForMail('ada@example.com');
    expect(mail.authUser).toBe(USER);
    expect(mail.envelopeTo).toEqual(['ada@example.com']);
    expect(mail.parsed.to?.map((address) => address.address)).toEqual(['ada@example.com']);
    expect(mail.subject).toBe('Confirm your e-mail');
    expect(mail.raw).toMatch(/^Content-Type: text\/plain/im);
    expect(mail.text?.trim()).toBe('Plain words.');
    expect(mail.html).toContain('<p>Rich words.</p>');
  });

  it('sends a text-only mail as text/plain', async () => {
    await mailer(smtp.url).send({ to: 'ada@example.com', subject: 'Code', text: 'Your code is 123456.' });
    const mail = await smtp.waitForMail('ada@example.com');
    expect(mail.raw).toMatch(/^Content-Type: text\/plain/im);
    expect(mail.raw).not.toMatch(/text\/html/i);
    expect(mail.text?.trim()).toBe('Your code is 123456.');
  });

  it('sends from Gatehouse <no-reply@PUBLIC_URL’s host>, envelope included', async () => {
    await mailer(smtp.url).send({ to: 'ada@example.com', subject: 's', text: 't' });
    const mail = await smtp.waitForMail('ada@example.com');
    expect(mail.parsed.from).toMatchObject({ name: 'Gatehouse', address: 'no-reply@id.example.com' });
    expect(mail.envelopeFrom).toBe('no-reply@id.example.com');
  });

  it('keeps Unicode subjects and bodies intact', async () => {
    await mailer(smtp.url).send({ to: 'ada@example.com', subject: 'Grüße 🙂', text: 'Ünïcödé ı' });
    const mail = await smtp.waitForMail('ada@example.com');
    expect(mail.subject).toBe('Grüße 🙂');
    expect(mail.text?.trim()).toBe('Ünïcödé ı');
  });

  it('reuses pooled connections for several mails', async () => {
    const pooled = mailer(smtp.url);
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((name) => pooled.send({ to: `${name}@example.com`, subject: name, text: name })));
    expect(smtp.messages.map((message) => message.envelopeTo[0]).sort()).toEqual(['a', 'b', 'c', 'd', 'e'].map((n) => `${n}@example.com`));
  });

  it('keeps its connection open between mails, until closed', async () => {
    const pooled = mailer(smtp.url);
    await pooled.send({ to: 'a@example.com', subject: 's', text: 't' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(smtp.openConnections).toBe(1);
    await pooled.close();
    await expect.poll(() => smtp.openConnections, { timeout: 2_000 }).toBe(0);
  });

  it('refuses a recipient that is a list, carries a name or a line break, and sends nothing', async () => {
    const sender = mailer(smtp.url);
    for (const to of ['a@example.com, b@example.com', 'Eve <eve@example.com>', 'a@example.com\r\nBcc: eve@example.com', 'a;b@example.com']) {
      await expect(sender.send({ to, subject: 's', text: 't' })).rejects.toThrow(/exactly one bare address/);
    }
    expect(smtp.messages).toEqual([]);
  });

  it('does not let a line break in the subject add a header', async () => {
    await mailer(smtp.url).send({ to: 'ada@example.com', subject: 'Hello\r\nBcc: eve@example.com', text: 't' });
    const mail = await smtp.waitForMail('ada@example.com');
    expect(mail.envelopeTo).toEqual(['ada@example.com']);
    expect(mail.parsed.headers.some((header) => header.key === 'bcc')).toBe(false);
  });

  it('fails with a MailDeliveryError that names the server but not the password on a refused login', async () => {
    const wrong = new URL(smtp.url);
    wrong.password = encodeURIComponent('not-the-password-xyz');
    const error = await mailer(wrong.toString()).send({ to: 'ada@example.com', subject: 's', text: 't' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailDeliveryError);
    const failure = error as MailDeliveryError;
    expect(failure.code).toBe('EAUTH');
    expect(failure.message).toContain(`127.0.0.1:${smtp.port}`);
    const everything = JSON.stringify({ fields: { ...failure }, message: failure.message, stack: failure.stack, cause: failure.cause });
    expect(everything).not.toContain('not-the-password-xyz');
    expect(everything).not.toContain(Buffer.from('not-the-password-xyz').toString('base64').slice(0, 12));
    expect(smtp.messages).toEqual([]);
  });

  it('fails with a MailDeliveryError, without the password, when the server cannot be reached', async () => {
    const closed = await startSmtpServer();
    const unreachable = `smtp://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${closed.port}`;
    await closed.close();
    const error = await mailer(unreachable, 2_000).send({ to: 'ada@example.com', subject: 's', text: 't' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect((error as Error).message).toMatch(/^Could not send mail through smtp:\/\/127\.0\.0\.1:\d+: /);
    const { message, stack } = error as Error;
    expect(JSON.stringify({ fields: { ...(error as object) }, message, stack })).not.toContain('ss:w/rd');
  });
});
