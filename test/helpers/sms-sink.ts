/**
 * A stand-in SMS gateway on loopback: the one thing a test cannot reach for real here. It records
 * every `{to, text}` the service POSTs to `SMS_WEBHOOK_URL`, and can be told to fail.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SmsSink {
  readonly url: string;
  readonly messages: { to: string; text: string; contentType: string | undefined }[];
  /** The status the next requests get (200 by default). */
  status: number;
  /** The last message to `to`, if any. */
  last(to: string): { to: string; text: string } | undefined;
  close(): Promise<void>;
}

export async function startSmsSink(): Promise<SmsSink> {
  const messages: SmsSink['messages'] = [];
  const sink = { status: 200 } as { status: number };
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const parsed = JSON.parse(body) as { to: string; text: string };
      messages.push({ to: parsed.to, text: parsed.text, contentType: request.headers['content-type'] });
      response.statusCode = sink.status;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(sink, {
    url: `http://127.0.0.1:${port}/sms`,
    messages,
    last: (to: string) => [...messages].reverse().find((message) => message.to === to),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
