/** Runs at most `limit` tasks at once; the others wait their turn, first come first served. */
export class Slots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`Slots need a limit of at least 1, not ${limit}.`);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.limit) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      // A finished task hands its slot straight to the next in line.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  /** Tasks running now and waiting, for tests and metrics. */
  get load(): { readonly active: number; readonly waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }
}
