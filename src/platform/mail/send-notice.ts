import type { Logger } from 'pino';
import type { MailMessage, Mailer } from './mailer.ts';

/**
 * Sends a mail whose failure must not undo what it tells of (a notice, a confirmation link): the
 * failure is logged with the subject only, never the message, which may hold a code. Given as a
 * function, the message is composed here too, so that a template that fails (an application's)
 * is logged the same way instead of failing what already happened. Never rejects.
 */
export async function sendNotice(mailer: Mailer, logger: Pick<Logger, 'error'>, message: MailMessage | (() => MailMessage)): Promise<void> {
  let subject: string | undefined;
  try {
    const composed = typeof message === 'function' ? message() : message;
    subject = composed.subject;
    await mailer.send(composed);
  } catch (error) {
    logger.error({ err: error, subject }, 'could not send a mail');
  }
}
