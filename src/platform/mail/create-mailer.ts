import type { Logger } from 'pino';
import type { Config } from '../../config/config.ts';
import type { Store } from '../../store/ports.ts';
import { type Clock, systemClock } from '../clock.ts';
import type { Mailer } from './mailer.ts';
import { OutboxMailer } from './outbox-mailer.ts';
import { SmtpMailer } from './smtp-mailer.ts';

/**
 * SMTP when SMTP_URL is set, the dev outbox otherwise. Production always has SMTP_URL (the
 * configuration refuses to start without it), so the outbox never swallows real mail.
 */
export function createMailer(
  config: Pick<Config, 'smtpUrl' | 'publicUrl'>,
  store: Pick<Store, 'outbox'>,
  logger: Logger,
  clock: Clock = systemClock,
  /** The `From` name: the product's. */
  fromName?: string,
): Mailer {
  if (config.smtpUrl) return new SmtpMailer({ smtpUrl: config.smtpUrl, publicUrl: config.publicUrl, ...(fromName ? { fromName } : {}) });
  return new OutboxMailer(store.outbox, clock, logger);
}

/** Releases what the mailer holds open (the SMTP pool's connections); for shutdown. */
export async function closeMailer(mailer: Mailer): Promise<void> {
  if (mailer instanceof SmtpMailer) await mailer.close();
}
