import DataLoader from 'dataloader';
import type { UserAdministration } from 'gatehouse-auth/fastify';
import type { DataVersion, User } from 'gatehouse-auth/store';
import type { Post } from '../storage/post-store.ts';
import type { Posts } from './posts.ts';
import { VersionedReads } from './versioned-reads.ts';

/** Users kept between operations while the store is unchanged: a viewer's `me` and the authors of posts. */
const KEPT_USERS = 1_000;

/** What the posts schema adds to each operation's context: loaders that batch by tick. */
export interface PostLoaders {
  /** Users by id: every `Post.author` of a response in one look-up. */
  readonly users: DataLoader<number, User | null>;
  /** Each author's newest posts, by `first`: every `User.posts` of a response in one query. */
  postsByAuthor(first: number): DataLoader<number, Post[]>;
}

/**
 * The loaders of one operation (or one event of a subscription), each made when a resolver first
 * needs it: most operations read no author at all. Users are read from the store only when not
 * kept from an earlier operation at the store's current data version (versioned-reads.ts): every
 * signed-in `me` reads its caller, and without a version (PostgreSQL) every operation reads afresh.
 */
export function postLoaders(users: Pick<UserAdministration, 'findByIds'>, posts: Posts, dataVersion: DataVersion | null = null): () => PostLoaders {
  const keptUsers = new VersionedReads<number, User | null>(dataVersion, KEPT_USERS);
  const loadUsers = async (ids: readonly number[]): Promise<(User | null)[]> => {
    const version = keptUsers.currentVersion();
    const kept = ids.map((id) => (version === null ? undefined : keptUsers.get(id)));
    const missing = ids.filter((_id, at) => kept[at] === undefined);
    if (missing.length === 0) return kept as (User | null)[];
    const found = new Map((await users.findByIds(missing)).map((user) => [user.id, user]));
    if (version !== null) for (const id of missing) keptUsers.set(id, found.get(id) ?? null, version);
    return ids.map((id, at) => kept[at] ?? found.get(id) ?? null);
  };
  return () => {
    let usersById: DataLoader<number, User | null> | undefined;
    const byFirst = new Map<number, DataLoader<number, Post[]>>();
    return {
      get users() {
        usersById ??= new DataLoader(loadUsers);
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
