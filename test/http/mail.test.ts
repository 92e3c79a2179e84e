/**
 * The mailer as the running service wires it (docs/reference/configuration.md): the dev outbox without SMTP_URL,
 * SMTP through a real server with it, and the SMTP pool closed when the app closes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MembershipPaths } from '../../src/endpoints/membership-paths.ts';
import { confirmationMail } from '../../src/identity/account-mail.ts';
import { OutboxMailer } from '../../src/platform/mail/outbox-mailer.ts';
import { SmtpMailer } from '../../src/platform/mail/smtp-mailer.ts';
import { testEngines } from '../helpers/databases.ts';
import { readOutbox, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { startTestApp, type TestApp, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const CODE = 'dGhpcy1pcy1hLWNvbmZpcm1hdGlvbi1jb2RlLW9mLTI1Ng';

describe.each(engines)('the dev outbox of the service on $engine', (engine) => {
  const ctx = useTestApp(engine, { env: { PUBLIC_URL: 'https://id.example.com' } });

  it('keeps mail in the outbox when SMTP_URL is unset, readable whole, and logs only recipient and subject', async () => {
    expect(ctx.services.mailer).toBeInstanceOf(OutboxMailer);
    const { user } = await ctx.createUser();
    const mail = confirmationMail(user, CODE, MembershipPaths.ROOT.accountLinks(ctx.services.config.publicUrl));
    await ctx.services.mailer.send(mail);

    const [stored, ...rest] = await readOutbox(ctx, user.email);
    expect(rest).toEqual([]);
    expect(stored).toMatchObject({ channel: 'mail', recipient: user.email, subject: mail.subject, text: mail.text });
    expect(stored!.text).toContain(`https://id.example.com/account/confirm-email?userId=${user.id}&code=${CODE}`);

    const lines = ctx.logs.filter((line) => line.includes('dev outbox'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ to: user.email, subject: mail.subject });
    expect(ctx.logs.join('')).not.toContain(CODE);
    expect(ctx.logs.join('')).not.toContain('/account/confirm-email');
  });
});

describe.each(engines)('SMTP delivery from the service on $engine', (engine) => {
  let smtp: TestSmtpServer | undefined;
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    await smtp?.close();
    app = smtp = undefined;
    await engine.dropAll();
  });

  it('sends through SMTP_URL with its credentials, from no-reply at PUBLIC_URL’s host, and closes the pool with the app', async () => {
    smtp = await startSmtpServer({ user: 'gatehouse', password: 'smtp secret/1' });
    app = await startTestApp(await engine.createDatabaseUrl(), { env: { SMTP_URL: smtp.url } });
    expect(app.services.mailer).toBeInstanceOf(SmtpMailer);
    const { user } = await app.createUser();

    await app.services.mailer.send(confirmationMail(user, CODE, MembershipPaths.ROOT.accountLinks(app.services.config.publicUrl)));
    const mail = await smtp.waitForMail(user.email);
    expect(mail.authUser).toBe('gatehouse');
    expect(mail.subject).toBe('Confirm your e-mail address');
    expect(mail.raw).toMatch(/^Content-Type: text\/plain/im);
    expect(mail.text).toContain(`/account/confirm-email?userId=${user.id}&code=${CODE}`);
    // PUBLIC_URL defaults to http://127.0.0.1:3000: an IPv4 host becomes an address literal.
    expect(mail.parsed.from?.address).toBe('no-reply@[127.0.0.1]');
    // Nothing went to the outbox, and the log holds neither the code nor the SMTP password.
    expect(await readOutbox(app)).toEqual([]);
    expect(app.logs.join('')).not.toContain(CODE);
    expect(app.logs.join('')).not.toContain('smtp secret');

    // The pool keeps its connection between mails, and the app's close ends it.
    expect(smtp.openConnections).toBe(1);
    await app.close();
    app = undefined;
    await expect.poll(() => smtp!.openConnections, { timeout: 2_000 }).toBe(0);
  });
});
