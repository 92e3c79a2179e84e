import type { Logger } from 'pino';
import type { MailMessage, Mailer } from './mailer.ts';

/**
 * Sends a mail whose failure must not undo what it tells of (a notice, a confirmation link): the
 * failure is logged with the subject only, never the message, which may hold a code. Never rejects.
 */
export async function sendNotice(mailer: Mailer, logger: Pick<Logger, 'error'>, message: MailMessage): Promise<void> {
  try {
    await mailer.send(message);
  } catch (error) {
    logger.error({ err: error, subject: message.subject }, 'could not send a mail');
  }
}
