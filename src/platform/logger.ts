import { pino, type Logger } from 'pino';
import { type AuthenticationHandler, guardedHeaders } from '../security/authentication/index.ts';

export interface LoggerOptions {
  /** @default the `LOG_LEVEL` environment variable, else `info` */
  readonly level?: string;
  /** @default standard output */
  readonly destination?: NodeJS.WritableStream;
  /**
   * The application's own authentication schemes (the ones given to Gatehouse as `schemes`):
   * the headers each declares it reads (`credentials`) are redacted beside the contract's.
   */
  readonly schemes?: readonly AuthenticationHandler[];
}

/** A header name as RFC 9110 allows it (a token): what may sit inside a redaction path's quotes. */
const HEADER_NAME = /^[a-z0-9!#$%&'*+.^_`|~-]+$/;

/**
 * The service's logger. Credentials never reach it: headers that carry them (the contract's,
 * and those the application's schemes declare) are redacted from a logged `headers` object, at
 * the top or under `req`, and request lines log the path without its query string
 * (confirmation and reset codes travel there).
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const headers = guardedHeaders(options.schemes ?? []);
  for (const name of headers) {
    if (!HEADER_NAME.test(name)) throw new Error(`A scheme declares "${name}" as a credential header, which is no header name.`);
  }
  const settings = {
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
    redact: {
      // A request's headers as Fastify's request serializer would show them, and as an application logs them.
      paths: [...headers.flatMap((name) => [`req.headers["${name}"]`, `headers["${name}"]`]), 'res.headers["set-cookie"]'],
      censor: '[redacted]',
    },
  };
  return options.destination ? pino(settings, options.destination as pino.DestinationStream) : pino(settings);
}
