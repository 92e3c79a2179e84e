/**
 * A few requests of one client at a time; the client's others wait their turn, in order. The
 * HTTP layer holds the routes that hash a password this way, before their bodies are read
 * (decision 0066). A client that floods
 * from many connections then waits on all of them instead of resending at once: the event loop
 * is not spent answering its refusals, and another client's sign-in goes through at its usual
 * pace. Beyond `maxWaiting` held requests a client is refused, so what one address can make the
 * service hold stays bounded.
 */
export class ClientTurns {
  private readonly clients = new Map<string, Client>();

  constructor(
    private readonly running: number,
    private readonly maxWaiting: number,
  ) {}

  /**
   * A place in `key`'s line: `ready` resolves true when the turn comes, false when the place was
   * left before it came; `leave` lets the turn (or the place) go, once, whenever the request
   * ends. Null when the client already has `maxWaiting` requests waiting.
   */
  enter(key: string): Turn | null {
    let client = this.clients.get(key);
    if (client === undefined) {
      client = { running: 0, waiting: [] };
      this.clients.set(key, client);
    }
    if (client.running < this.running) {
      client.running += 1;
      return { ready: Promise.resolve(true), leave: once(() => this.finish(key)) };
    }
    if (client.waiting.length >= this.maxWaiting) return null;
    let admitted = false;
    let settle!: (admitted: boolean) => void;
    const ready = new Promise<boolean>((resolve) => (settle = resolve));
    const place: Waiting = {
      admit: () => {
        admitted = true;
        settle(true);
      },
    };
    client.waiting.push(place);
    const leave = once(() => {
      if (admitted) return this.finish(key);
      client.waiting.splice(client.waiting.indexOf(place), 1);
      this.forgetIfIdle(key, client);
      settle(false);
    });
    return { ready, leave };
  }

  /** Clients with a request running or waiting: what the map holds. */
  get size(): number {
    return this.clients.size;
  }

  private finish(key: string): void {
    const client = this.clients.get(key);
    if (client === undefined) return;
    const next = client.waiting.shift();
    if (next !== undefined) return next.admit();
    client.running -= 1;
    this.forgetIfIdle(key, client);
  }

  private forgetIfIdle(key: string, client: Client): void {
    if (client.running === 0 && client.waiting.length === 0) this.clients.delete(key);
  }
}

export interface Turn {
  readonly ready: Promise<boolean>;
  readonly leave: () => void;
}

interface Client {
  running: number;
  readonly waiting: Waiting[];
}

interface Waiting {
  readonly admit: () => void;
}

function once(action: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    action();
  };
}
