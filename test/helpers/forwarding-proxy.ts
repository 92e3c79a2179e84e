/**
 * A reverse proxy as nginx (`proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for`), an
 * AWS load balancer or HAProxy run one: it passes each request on to `target` and appends the
 * address it saw the client come from to whatever `X-Forwarded-For` the client sent itself.
 */
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ForwardingProxy {
  readonly url: string;
  close(): Promise<void>;
}

export async function startForwardingProxy(target: URL, { localAddress }: { localAddress?: string } = {}): Promise<ForwardingProxy> {
  const server: Server = createServer((incoming, outgoing) => {
    const sent = incoming.headers['x-forwarded-for'];
    const seen = incoming.socket.remoteAddress ?? '';
    const forwardedFor = sent === undefined ? seen : `${Array.isArray(sent) ? sent.join(', ') : sent}, ${seen}`;
    const upstream = forward(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, localAddress, headers: { ...incoming.headers, 'x-forwarded-for': forwardedFor } },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
