/**
 * Outgoing mail, as the membership flows see it: one message to one stored address. Every mail
 * has a text part, so that people and programs can read it (docs/reference/membership.md); `html` is optional.
 */
export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}
