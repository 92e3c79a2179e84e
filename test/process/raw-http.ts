/**
 * HTTP/1.1 over a plain TCP socket, written by hand: what a shutdown test needs and `fetch`
 * cannot do — a request sent in parts, a request sent on a kept-alive connection at a moment of
 * the test's choosing, and the answers read in order from that one connection.
 *
 *   const connection = await RawConnection.open(url);
 *   connection.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
 *   const answer = await connection.nextResponse();   // { status, headers, body }
 *   await connection.ended();                         // the server closed the connection
 */
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  readonly status: number;
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const WAIT_MS = 15_000;

export class RawConnection {
  private buffer = Buffer.alloc(0);
  private closed = false;
  private readonly waiters = new Set<() => void>();

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  static open(baseUrl: string): Promise<RawConnection> {
    const { hostname, port } = new URL(baseUrl);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port) }, () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  write(text: string): void {
    this.socket.write(text);
  }

  isClosed(): boolean {
    return this.closed;
  }

  /** `HTTP/1.1 100 Continue`: the server has the request's headers and waits for its body. */
  async continued(): Promise<void> {
    await this.until(() => /^HTTP\/1\.1 100 [^\r]*\r\n\r\n/.test(this.buffer.toString('latin1')), 'a 100 Continue');
    this.buffer = this.buffer.subarray(this.buffer.indexOf('\r\n\r\n') + 4);
  }

  /** The next whole response on the connection (a body of Content-Length bytes). */
  async nextResponse(): Promise<RawResponse> {
    let response: { value: RawResponse; length: number } | undefined;
    await this.until(() => (response = parseResponse(this.buffer)) !== undefined, 'a response');
    this.buffer = this.buffer.subarray(response!.length);
    return response!.value;
  }

  /** Resolves once the server has closed the connection. */
  ended(): Promise<void> {
    return this.until(() => this.closed, 'the connection to close');
  }

  destroy(): void {
    this.socket.destroy();
  }

  private until(condition: () => boolean, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (condition()) return finish(resolve);
        if (this.closed) finish(() => reject(new Error(`the connection closed before ${what}; received: ${this.buffer.toString('latin1')}`)));
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`no ${what} within ${WAIT_MS} ms`))), WAIT_MS);
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        settle();
      };
      this.waiters.add(check);
      check();
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

function parseResponse(buffer: Buffer): { value: RawResponse; length: number } | undefined {
  const headEnd = buffer.indexOf('\r\n\r\n');
  if (headEnd === -1) return undefined;
  const [statusLine, ...lines] = buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  if (buffer.length < headEnd + 4 + length) return undefined;
  const body = buffer.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
  return { value: { status: Number(statusLine!.split(' ')[1]), headers, body }, length: headEnd + 4 + length };
}
