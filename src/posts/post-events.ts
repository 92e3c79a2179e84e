import type { Post } from '../store/ports.ts';

/**
 * Where `createPost` announces a post, for `postCreated` subscribers. In memory for one
 * instance; a Redis implementation fans out across instances.
 */
export interface PostEvents {
  publish(post: Post): Promise<void>;
  /** Calls `listener` for every post published from now on; the returned function stops it. */
  subscribe(listener: (post: Post) => void): () => void;
  /** Ready to receive (the service calls it at start). */
  start(): Promise<void>;
  close(): Promise<void>;
}

export class InMemoryPostEvents implements PostEvents {
  private readonly listeners = new Set<(post: Post) => void>();

  async publish(post: Post): Promise<void> {
    for (const listener of this.listeners) listener(post);
  }

  subscribe(listener: (post: Post) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
