/**
 * A TCP proxy in front of a real server (the shared PostgreSQL), so that a test can make the
 * server look gone without touching it:
 *
 *   const proxy = await TcpProxy.start({ host: '127.0.0.1', port: 5432 });
 *   url.host = `127.0.0.1:${proxy.port}`;
 *   proxy.cut();        // every connection destroyed, new ones refused (a server that is down)
 *   proxy.blackhole();  // connections accepted and held, nothing forwarded (a server that never answers)
 *   proxy.restore();    // forwards again
 *   await proxy.close();
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

type Mode = 'forward' | 'cut' | 'blackhole';

export class TcpProxy {
  private mode: Mode = 'forward';
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** Listens on a free port of 127.0.0.1 and forwards to `target`. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => proxy!.accept(client, target));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    proxy = new TcpProxy(server, (server.address() as { port: number }).port);
    return proxy;
  }

  /** Destroys every connection and refuses new ones (each is reset as it arrives). */
  cut(): void {
    this.mode = 'cut';
    this.destroyAll();
  }

  /** Accepts connections and forwards nothing, on the connections open now too. */
  blackhole(): void {
    this.mode = 'blackhole';
  }

  /**
   * Forwards again. Connections held by a black hole are dropped (their bytes are lost, as on a
   * route that came back); new ones go through.
   */
  restore(): void {
    if (this.mode === 'blackhole') this.destroyAll();
    this.mode = 'forward';
  }

  async close(): Promise<void> {
    this.destroyAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, target: { host: string; port: number }): void {
    this.track(client);
    if (this.mode === 'cut') return void client.resetAndDestroy();
    // Held: read and dropped, never answered.
    if (this.mode === 'blackhole') return;
    const upstream = connect(target);
    this.track(upstream);
    // By hand rather than pipe(): a black hole that starts later drops what either side sends.
    client.on('data', (chunk) => void (this.mode === 'forward' && upstream.write(chunk)));
    upstream.on('data', (chunk) => void (this.mode === 'forward' && client.write(chunk)));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  private destroyAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }
}
