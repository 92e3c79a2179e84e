import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { useMigratedStore } from '../../../test/contracts/migrated-store.ts';
import { testEngines } from '../../../test/helpers/databases.ts';
import { MembershipPaths } from '../../endpoints/membership-paths.ts';
import { confirmationMail, signInCodeMail } from '../../identity/account-mail.ts';
import { ManualClock } from '../clock.ts';
import { createLogger } from '../logger.ts';
import { closeMailer, createMailer } from './create-mailer.ts';
import { OutboxMailer } from './outbox-mailer.ts';
import { SmtpMailer } from './smtp-mailer.ts';

const engines = await testEngines();
const PUBLIC_URL = new URL('https://id.example.com');
const CODE = 'c29tZS1jb25maXJtYXRpb24tY29kZS0yNTYtYml0cw';

function capturedLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ level: 'trace', destination }), lines };
}

describe.each(engines)('OutboxMailer on $engine', (engine) => {
  const database = useMigratedStore(engine);
  const clock = new ManualClock(Date.UTC(2026, 4, 1, 12));

  it('stores the whole mail in the outbox, dated by the clock', async () => {
    const { logger } = capturedLogger();
    const mail = confirmationMail({ id: 7, email: 'ada@example.com' }, CODE, MembershipPaths.ROOT.accountLinks(PUBLIC_URL));
    await new OutboxMailer(database.store.outbox, clock, logger).send(mail);
    expect(await database.store.outbox.list({ recipient: 'ada@example.com' })).toEqual([
      {
        id: expect.any(Number),
        channel: 'mail',
        recipient: 'ada@example.com',
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        createdAt: Date.UTC(2026, 4, 1, 12),
      },
    ]);
  });

  it('stores a text-only mail with a null HTML part', async () => {
    const { logger } = capturedLogger();
    await new OutboxMailer(database.store.outbox, clock, logger).send({ to: 'ada@example.com', subject: 's', text: 't' });
    expect(await database.store.outbox.list()).toMatchObject([{ text: 't', html: null }]);
  });

  it('logs one line naming only the recipient and the subject: no body, code or URL', async () => {
    const { logger, lines } = capturedLogger();
    const mailer = new OutboxMailer(database.store.outbox, clock, logger);
    await mailer.send(confirmationMail({ id: 7, email: 'ada@example.com' }, CODE, MembershipPaths.ROOT.accountLinks(PUBLIC_URL)));
    await mailer.send(signInCodeMail({ id: 7, email: 'ada@example.com' }, '493817'));
    expect(lines).toHaveLength(2);
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const entry of entries) {
      const { level, time, pid, hostname, msg, ...fields } = entry;
      expect(Object.keys(fields).sort()).toEqual(['subject', 'to']);
      expect(fields.to).toBe('ada@example.com');
      expect(msg).toBe('mail kept in the dev outbox');
    }
    const everything = lines.join('');
    expect(everything).not.toContain(CODE);
    expect(everything).not.toContain('493817');
    expect(everything).not.toContain('https://');
    expect(everything).not.toContain('Hello');
  });

  it('refuses a recipient list and stores nothing', async () => {
    const { logger, lines } = capturedLogger();
    const mailer = new OutboxMailer(database.store.outbox, clock, logger);
    await expect(mailer.send({ to: 'a@example.com,b@example.com', subject: 's', text: 't' })).rejects.toThrow();
    expect(await database.store.outbox.list()).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('is what createMailer picks without SMTP_URL, and it writes to this store', async () => {
    const { logger } = capturedLogger();
    const mailer = createMailer({ smtpUrl: undefined, publicUrl: PUBLIC_URL }, database.store, logger, clock);
    expect(mailer).toBeInstanceOf(OutboxMailer);
    await mailer.send({ to: 'ada@example.com', subject: 's', text: 't' });
    expect(await database.store.outbox.list()).toHaveLength(1);
    await closeMailer(mailer); // nothing to close: must not throw
  });
});

describe('createMailer', () => {
  it('picks SMTP when SMTP_URL is set, and closeMailer closes it', async () => {
    const { logger } = capturedLogger();
    const unused = { outbox: { append: () => Promise.reject(new Error('not the outbox')), list: () => Promise.resolve([]) } };
    const mailer = createMailer({ smtpUrl: new URL('smtp://u:p@127.0.0.1:2525'), publicUrl: PUBLIC_URL }, unused, logger);
    expect(mailer).toBeInstanceOf(SmtpMailer);
    await closeMailer(mailer);
  });
});
