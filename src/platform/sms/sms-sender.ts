import type { Logger } from 'pino';
import type { Config } from '../../config/config.ts';
import type { OutboxStore } from '../../store/ports.ts';
import type { Clock } from '../clock.ts';

/** One text message to one phone number (E.164). */
export interface SmsMessage {
  readonly to: string;
  readonly text: string;
}

export interface SmsSender {
  send(message: SmsMessage): Promise<void>;
}

/** The gateway did not take the message. The error names the status, never the text (it holds a code). */
export class SmsDeliveryError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SmsDeliveryError';
  }
}

/** A gateway that does not answer within this is taken as down. */
const WEBHOOK_TIMEOUT_MS = 10_000;

/** docs/reference/configuration.md: each message is POSTed to `SMS_WEBHOOK_URL` as JSON `{to, text}`; any 2xx is delivery. */
export class WebhookSmsSender implements SmsSender {
  constructor(private readonly url: URL) {}

  async send(message: SmsMessage): Promise<void> {
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to: message.to, text: message.text }),
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
        redirect: 'error',
      });
    } catch (error) {
      throw new SmsDeliveryError('The SMS gateway could not be reached.', { cause: error });
    }
    await response.body?.cancel();
    if (!response.ok) throw new SmsDeliveryError(`The SMS gateway answered ${response.status}.`);
  }
}

/** Without a gateway outside production, messages wait in the dev outbox; the log names only the number. */
export class OutboxSmsSender implements SmsSender {
  constructor(
    private readonly outbox: OutboxStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async send(message: SmsMessage): Promise<void> {
    await this.outbox.append({ channel: 'sms', recipient: message.to, subject: null, text: message.text, html: null, createdAt: this.clock.now() });
    this.logger.info({ to: message.to }, 'SMS kept in the dev outbox');
  }
}

/** The webhook when configured; the dev outbox outside production; none in production without a gateway (phone features off). */
export function createSmsSender(config: Pick<Config, 'smsWebhookUrl' | 'production'>, outbox: OutboxStore, clock: Clock, logger: Logger): SmsSender | null {
  if (config.smsWebhookUrl) return new WebhookSmsSender(config.smsWebhookUrl);
  if (config.production) return null;
  return new OutboxSmsSender(outbox, clock, logger);
}
