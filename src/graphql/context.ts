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
}

export function createContext(user: ClaimsPrincipal, users: UserStore, posts: Posts): GraphQLContext {
  const byFirst = new Map<number, DataLoader<number, Post[]>>();
  return {
    user,
    users: new DataLoader(async (ids) => {
      const found = new Map((await users.findByIds(ids)).map((found) => [found.id, found]));
      return ids.map((id) => found.get(id) ?? null);
    }),
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
