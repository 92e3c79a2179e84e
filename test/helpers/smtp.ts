/**
 * A real SMTP server for tests (smtp-server on 127.0.0.1, a free port, no TLS) that keeps every
 * message it accepts, parsed with postal-mime, plus a reader for a test app's dev outbox.
 *
 *   const smtp = await startSmtpServer({ user: 'mailer', password: 's3cret' });
 *   // SMTP_URL = smtp.url  →  smtp://mailer:s3cret@127.0.0.1:<port>
 *   const mail = await smtp.waitForMail('ada@example.com');
 *   mail.subject; mail.text; mail.raw; mail.envelopeTo
 *   await smtp.close();
 *
 *   const [latest] = await readOutbox(ctx, 'ada@example.com');   // newest first
 */
import type { AddressInfo } from 'node:net';
import PostalMime, { type Email } from 'postal-mime';
import { SMTPServer } from 'smtp-server';
import type { OutboxMessage } from '../../src/store/ports.ts';
import type { TestApp } from './test-app.ts';

export interface ReceivedMail {
  /** The RCPT TO addresses of the SMTP envelope: where the server would deliver it. */
  readonly envelopeTo: string[];
  readonly envelopeFrom: string | null;
  /** The AUTH user the client signed in as, or null. */
  readonly authUser: string | null;
  /** The message as sent, headers and MIME parts. */
  readonly raw: string;
  readonly parsed: Email;
  readonly subject: string | undefined;
  readonly text: string | undefined;
  readonly html: string | undefined;
}

export interface TestSmtpServer {
  /** `smtp://user:password@127.0.0.1:port` (without credentials when none were given). */
  readonly url: string;
  readonly port: number;
  /** SMTP client connections open right now (a pooled mailer keeps one open between mails). */
  readonly openConnections: number;
  /** Every message accepted so far, oldest first. */
  readonly messages: readonly ReceivedMail[];
  /** The first message (received or yet to come) with `to` among its envelope recipients. */
  /** The first mail to `to` (that `matching` accepts, when given), as soon as it arrives. */
  waitForMail(to: string, options?: { timeoutMs?: number; matching?: (mail: ReceivedMail) => boolean }): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export interface SmtpServerOptions {
  /** With credentials, AUTH PLAIN and LOGIN are required and only these are accepted. */
  readonly user?: string;
  readonly password?: string;
}

export async function startSmtpServer(options: SmtpServerOptions = {}): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const credentials = options.user === undefined ? null : { user: options.user, password: options.password ?? '' };
  const server = new SMTPServer({
    secure: false,
    disabledCommands: credentials ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    authOptional: credentials === null,
    // Quiet, and a short wait for clients that forgot to close.
    logger: false,
    closeTimeout: 1_000,
    onAuth(auth, _session, callback) {
      if (credentials && auth.username === credentials.user && auth.password === credentials.password) {
        callback(null, { user: auth.username });
      } else {
        callback(new Error('Invalid username or password'));
      }
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        PostalMime.parse(raw).then(
          (parsed) => {
            messages.push({
              envelopeTo: session.envelope.rcptTo.map((address) => address.address),
              envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
              authUser: session.user ?? null,
              raw,
              parsed,
              subject: parsed.subject,
              text: parsed.text,
              html: parsed.html,
            });
            for (const wake of waiters) wake();
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  const auth = credentials ? `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@` : '';

  return {
    url: `smtp://${auth}127.0.0.1:${port}`,
    port,
    messages,
    get openConnections() {
      return server.connections.size;
    },
    waitForMail(to, { timeoutMs = 5_000, matching = () => true } = {}) {
      const find = () => messages.find((message) => message.envelopeTo.includes(to) && matching(message));
      const found = find();
      if (found) return Promise.resolve(found);
      return new Promise<ReceivedMail>((resolve, reject) => {
        const wake = () => {
          const message = find();
          if (!message) return;
          done();
          resolve(message);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`No mail to ${to} within ${timeoutMs} ms (received ${messages.length}).`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(wake);
        };
        waiters.add(wake);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The dev outbox of a test app (or any holder of a store), newest first, optionally for one recipient. */
export function readOutbox(holder: Pick<TestApp, 'services'>, recipient?: string): Promise<OutboxMessage[]> {
  return holder.services.store.outbox.list(recipient === undefined ? {} : { recipient });
}
