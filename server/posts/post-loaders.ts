import DataLoader from 'dataloader';
import type { User, UserStore } from 'gatehouse-auth/store';
import type { Post } from '../storage/post-store.ts';
import type { Posts } from './posts.ts';

/** What the posts schema adds to each operation's context: loaders that batch by tick. */
export interface PostLoaders {
  /** Users by id: every `Post.author` of a response in one look-up. */
  readonly users: DataLoader<number, User | null>;
  /** Each author's newest posts, by `first`: every `User.posts` of a response in one query. */
  postsByAuthor(first: number): DataLoader<number, Post[]>;
}

/**
 * The loaders of one operation (or one event of a subscription), each made when a resolver first
 * needs it: most operations read no author at all.
 */
export function postLoaders(userStore: UserStore, posts: Posts): () => PostLoaders {
  return () => {
    let usersById: DataLoader<number, User | null> | undefined;
    const byFirst = new Map<number, DataLoader<number, Post[]>>();
    return {
      get users() {
        usersById ??= new DataLoader(async (ids) => {
          const found = new Map((await userStore.findByIds(ids)).map((user) => [user.id, user]));
          return ids.map((id) => found.get(id) ?? null);
        });
        return usersById;
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
  };
}
