import { pino, type Logger } from 'pino';

/**
 * The service's logger. Credentials never reach it: headers that carry them are redacted, and
 * request lines log the path without its query string (confirmation and reset codes travel there).
 */
export function createLogger(options: { level?: string; destination?: NodeJS.WritableStream } = {}): Logger {
  const settings = {
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', 'res.headers["set-cookie"]'],
      censor: '[redacted]',
    },
  };
  return options.destination ? pino(settings, options.destination as pino.DestinationStream) : pino(settings);
}
