import DataLoader from 'dataloader';
import type { Posts } from '../posts/posts.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';
import type { Post, User, UserStore } from '../store/ports.ts';

/** What every resolver of one operation sees: the caller, and loaders that batch by tick. */
export interface GraphQLContext {
  readonly user: ClaimsPrincipal;
  /** Whether anything read `user` (a policy, `me`, a mutation): then the result is this caller's own. */
  readonly viewerRead: boolean;
  /** Users by id: every `Post.author` of a response in one look-up. */
  readonly users: DataLoader<number, User | null>;
  /** Each author's newest posts, by `first`: every `User.posts` of a response in one query. */
  postsByAuthor(first: number): DataLoader<number, Post[]>;
  /** Forgets what the loaders read: a subscription's context outlives many events, each read afresh. */
  clear(): void;
}

/**
 * A context per operation; its loaders are made when a resolver first needs them. `user` is the
 * caller, or how to read the caller's current principal: a socket's caller may change under a
 * long-lived subscription (a cookie socket takes its user's new claims), and each of its events
 * is resolved for the caller as they are then.
 */
export function createContext(user: ClaimsPrincipal | (() => ClaimsPrincipal), users: UserStore, posts: Posts): GraphQLContext {
  return new OperationContext(user, users, posts);
}

class OperationContext implements GraphQLContext {
  private read = false;
  private usersById: DataLoader<number, User | null> | null = null;
  private readonly byFirst = new Map<number, DataLoader<number, Post[]>>();

  constructor(
    private readonly caller: ClaimsPrincipal | (() => ClaimsPrincipal),
    private readonly userStore: UserStore,
    private readonly posts: Posts,
  ) {}

  get user(): ClaimsPrincipal {
    this.read = true;
    return typeof this.caller === 'function' ? this.caller() : this.caller;
  }

  get viewerRead(): boolean {
    return this.read;
  }

  get users(): DataLoader<number, User | null> {
    this.usersById ??= new DataLoader(async (ids) => {
      const found = new Map((await this.userStore.findByIds(ids)).map((user) => [user.id, user]));
      return ids.map((id) => found.get(id) ?? null);
    });
    return this.usersById;
  }

  postsByAuthor(first: number): DataLoader<number, Post[]> {
    let loader = this.byFirst.get(first);
    if (loader === undefined) {
      loader = new DataLoader(async (authorIds) => {
        const byAuthor = await this.posts.byAuthors(authorIds, first);
        return authorIds.map((id) => byAuthor.get(id) ?? []);
      });
      this.byFirst.set(first, loader);
    }
    return loader;
  }

  clear(): void {
    this.usersById?.clearAll();
    this.byFirst.clear();
  }
}
