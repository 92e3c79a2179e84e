import type { Transporter } from 'nodemailer';
import { assertPeerInstalled } from '../optional-peers.ts';
import { fromAddress } from './from-address.ts';
import { MailDeliveryError } from './mail-delivery-error.ts';
import type { Mailer, MailMessage } from './mailer.ts';
import { assertSingleRecipient } from './single-recipient.ts';

export interface SmtpMailerOptions {
  /** `smtp://user:pass@host:port` (STARTTLS when the server offers it) or `smtps://…` (TLS from the start). */
  readonly smtpUrl: URL;
  /** PUBLIC_URL: its host names the sender. */
  readonly publicUrl: URL;
  /** The sender's name: the product's. @default 'Gatehouse' */
  readonly fromName?: string;
  /** How long to wait for the connection, the greeting and each reply. @default 10_000 */
  readonly timeoutMs?: number;
}

/** A few connections, kept open between mails and closed after a while idle. */
const MAX_CONNECTIONS = 3;

/** Mail through an SMTP server, over a small pool of connections. */
export class SmtpMailer implements Mailer {
  /** Made at the first mail: nodemailer is loaded only by a service that sends one. */
  private transport: Promise<Transporter> | undefined;
  private readonly transportOptions;
  private readonly from: { name: string; address: string };
  /** Where the mail goes, for error messages: never the credentials. */
  private readonly server: string;
  /** The credentials as they may appear in a driver's message, to be blanked out of it. */
  private readonly secrets: string[];

  constructor(options: SmtpMailerOptions) {
    // nodemailer (an optional peer) loads with the first mail; a missing one fails the start.
    assertPeerInstalled('nodemailer', 'Mail over SMTP (SMTP_URL)');
    const { smtpUrl } = options;
    const secure = smtpUrl.protocol === 'smtps:';
    const user = decodeURIComponent(smtpUrl.username);
    const pass = decodeURIComponent(smtpUrl.password);
    const timeout = options.timeoutMs ?? 10_000;
    this.transportOptions = {
      pool: true,
      maxConnections: MAX_CONNECTIONS,
      host: smtpUrl.hostname.replace(/^\[(.*)\]$/, '$1'),
      ...(smtpUrl.port ? { port: Number(smtpUrl.port) } : {}),
      secure,
      ...(user ? { auth: { user, pass } } : {}),
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout * 3,
      // The text part goes as written; no tracking rewrites or attachments from paths.
      disableFileAccess: true,
      disableUrlAccess: true,
    };
    this.from = fromAddress(options.publicUrl, options.fromName);
    this.server = `${smtpUrl.protocol}//${smtpUrl.host}`;
    this.secrets = [pass, smtpUrl.password].filter((secret) => secret.length > 0);
  }

  async send(message: MailMessage): Promise<void> {
    assertSingleRecipient(message.to);
    try {
      this.transport ??= import('nodemailer').then(({ createTransport }) => createTransport(this.transportOptions));
      await (await this.transport).sendMail({
        from: this.from,
        to: { name: '', address: message.to },
        subject: message.subject,
        text: message.text,
        ...(message.html === undefined ? {} : { html: message.html }),
      });
    } catch (error) {
      throw this.deliveryError(error);
    }
  }

  /** Closes the pooled connections; call once, at shutdown. */
  async close(): Promise<void> {
    (await this.transport?.catch(() => undefined))?.close();
  }

  private deliveryError(error: unknown): MailDeliveryError {
    const failure = (error ?? {}) as { message?: unknown; code?: unknown; responseCode?: unknown };
    let reason = typeof failure.message === 'string' ? failure.message : String(error);
    for (const secret of this.secrets) reason = reason.split(secret).join('***');
    return new MailDeliveryError(
      `Could not send mail through ${this.server}: ${reason}`,
      typeof failure.code === 'string' ? failure.code : undefined,
      typeof failure.responseCode === 'number' ? failure.responseCode : undefined,
    );
  }
}
