import DataLoader from 'dataloader';
import type { Posts } from '../posts/posts.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';
import type { Post, User, UserStore } from '../store/ports.ts';

/** What every resolver of one operation sees: the caller, and loaders that batch by tick. */
export interface GraphQLContext {
  readonly user: ClaimsPrincipal;
  /** Users by id: every `Post.author` of a response in one look-up. */
  readonly users: DataLoader<number, User | null>;
  /** Each author's newest posts, by `first`: every `User.posts` of a response in one query. */
  postsByAuthor(first: number): DataLoader<number, Post[]>;
  /** Forgets what the loaders read: a subscription's context outlives many events, each read afresh. */
  clear(): void;
}

export function createContext(user: ClaimsPrincipal, users: UserStore, posts: Posts): GraphQLContext {
  const byFirst = new Map<number, DataLoader<number, Post[]>>();
  const usersById = new DataLoader<number, User | null>(async (ids) => {
    const found = new Map((await users.findByIds(ids)).map((found) => [found.id, found]));
    return ids.map((id) => found.get(id) ?? null);
  });
  return {
    user,
    users: usersById,
    clear() {
      usersById.clearAll();
      byFirst.clear();
    },
    postsByAuthor(first) {
      let loader = byFirst.get(first);
      if (loader === undefined) {
        loader = new DataLoader(async (authorIds) => {
          const byAuthor = await posts.byAuthors(authorIds, first);
          return authorIds.map((id) => byAuthor.get(id) ?? []);
        });
        byFirst.set(first, loader);
      }
      return loader;
    },
  };
}
