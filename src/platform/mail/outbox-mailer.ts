import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { OutboxStore } from '../../store/ports.ts';
import type { Mailer, MailMessage } from './mailer.ts';
import { assertSingleRecipient } from './single-recipient.ts';

/**
 * The dev outbox (docs/reference/configuration.md): without SMTP_URL, outside production, a mail is stored whole
 * in the `outbox` table, where a developer or a test reads its link or code. The log names only
 * the recipient and the subject: bodies carry codes and links.
 */
export class OutboxMailer implements Mailer {
  constructor(
    private readonly outbox: OutboxStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async send(message: MailMessage): Promise<void> {
    assertSingleRecipient(message.to);
    await this.outbox.append({
      channel: 'mail',
      recipient: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html ?? null,
      createdAt: this.clock.now(),
    });
    this.logger.info({ to: message.to, subject: message.subject }, 'mail kept in the dev outbox');
  }
}
