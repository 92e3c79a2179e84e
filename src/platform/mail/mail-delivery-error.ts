/**
 * A mail the SMTP server did not accept, or could not be reached for. The message says why
 * without the SMTP_URL's password; the driver's error is not kept as `cause`, since its fields
 * (the command sent, the server's reply) may echo credentials.
 */
export class MailDeliveryError extends Error {
  constructor(
    message: string,
    /** The driver's error code (`EAUTH`, `ECONNECTION`, `ETIMEDOUT`, …), when it gave one. */
    readonly code: string | undefined,
    /** The SMTP reply code (e.g. 535), when the server answered. */
    readonly responseCode: number | undefined,
  ) {
    super(message);
    this.name = 'MailDeliveryError';
  }
}
