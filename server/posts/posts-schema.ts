import { readFileSync } from 'node:fs';
import type { GraphQLContext, GraphQLResolvers } from 'gatehouse-auth/graphql';
import { DenyAnonymousRequirement } from 'gatehouse-auth';
import { authorizeDirective, graphqlError, type OrganizationFields } from 'gatehouse-auth/graphql';
import type { User } from 'gatehouse-auth/store';
import type { Post } from '../storage/post-store.ts';
import type { PostLoaders } from './post-loaders.ts';
import { PostError, type Posts } from './posts.ts';

/** The type definitions of docs/reference/graphql.md, with the `@authorize` directive they use. */
export const postsTypeDefs = [authorizeDirective, readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8')];

/** What the posts' resolvers see: the caller and its checks, and the loaders of the operation. */
export type PostsContext = GraphQLContext & PostLoaders;

/** The resolvers of the posts schema; `User.email` is under `@authorize(policy: "SelfOrAdmin")` in the SDL. */
export function postsResolvers(posts: Posts, organizations: OrganizationFields): GraphQLResolvers<PostsContext> {
  return {
    Query: {
      posts: (_root, args: { first: number }) => refusals(() => posts.list(args.first)),
      post: async (_root, args: { id: string }) => posts.byId(idOf(args.id)),
      me: async (_root, _args, context: PostsContext) => {
        const id = userIdOf(context);
        return id === null ? null : context.users.load(id);
      },
    },
    Mutation: {
      createPost: (_root, args: { title: string; body: string }, context: PostsContext) => refusals(() => posts.create(context, args)),
      updatePost: (_root, args: { id: string; title?: string | null; body?: string | null }, context: PostsContext) =>
        refusals(() => posts.update(context, idOf(args.id), args)),
      deletePost: (_root, args: { id: string }, context: PostsContext) => refusals(() => posts.delete(context, idOf(args.id))),
    },
    Subscription: {
      postCreated: {
        subscribe: async (_root, _args, context: PostsContext) => {
          await context.authorize(null, SIGNED_IN);
          return posts.created();
        },
        resolve: (post: Post) => post,
      },
    },
    Post: {
      id: (post: Post) => String(post.id),
      authorId: (post: Post) => String(post.authorId),
      author: async (post: Post, _args, context: PostsContext) => {
        const author = await context.users.load(post.authorId);
        if (author === null) throw graphqlError('NOT_FOUND', 'The author no longer exists.');
        return author;
      },
      createdAt: (post: Post) => new Date(post.createdAt).toISOString(),
    },
    User: {
      id: (user: User) => String(user.id),
      roles: (user: User) => user.roles,
      email: (user: User) => user.email,
      posts: (user: User, args: { first: number }, context: PostsContext) => refusals(() => context.postsByAuthor(checkedFirst(args.first)).load(user.id)),
      organizations: (user: User) => organizations.organizationsOf(user.id),
      // The active organization is the caller's credential's: another user's is not told.
      activeOrganization: (user: User, _args, context: PostsContext) =>
        userIdOf(context) === user.id ? organizations.activeOrganizationOf(context.user) : null,
    },
    Organization: {
      id: (organization: { id: number }) => String(organization.id),
    },
  };
}

const SIGNED_IN = [new DenyAnonymousRequirement()];

/** The domain's failures as GraphQL error codes; authorization refusals are the context's, already GraphQL errors. */
async function refusals<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof PostError)) throw error;
    if (error.reason === 'not-found') throw graphqlError('NOT_FOUND', 'There is no such post.');
    throw graphqlError('BAD_USER_INPUT', error.message, { errors: error.errors });
  }
}

function checkedFirst(first: number): number {
  if (!Number.isInteger(first) || first < 1 || first > 100) {
    throw new PostError('invalid', { first: ['first is from 1 to 100.'] });
  }
  return first;
}

/** An `ID` as the store knows it: a positive integer in decimal. */
function idOf(id: string): number {
  if (!/^[1-9][0-9]{0,14}$/.test(id)) throw graphqlError('BAD_USER_INPUT', 'An id is a positive integer.');
  return Number(id);
}

function userIdOf(context: PostsContext): number | null {
  const subject = context.user.isAuthenticated ? context.user.subject : null;
  return subject !== null && /^[1-9][0-9]*$/.test(subject) ? Number(subject) : null;
}
