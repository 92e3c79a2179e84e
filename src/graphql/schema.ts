import { readFileSync } from 'node:fs';
import {
  buildSchema,
  defaultFieldResolver,
  type GraphQLFieldResolver,
  type GraphQLSchema,
  isObjectType,
  type ConstDirectiveNode,
  Kind,
} from 'graphql';
type PolicyName = string;
import { PostError, type Posts } from '../posts/posts.ts';
import type { PostEvents } from '../posts/post-events.ts';
import { AuthorizationPolicyBuilder, type AuthorizationPolicy, type AuthorizationService, type PolicyProvider } from '../security/authorization/index.ts';
import type { Post, User } from '../store/ports.ts';
import type { GraphQLContext } from './context.ts';
import { forbidden, graphqlError, unauthenticated } from './errors.ts';
import { eventStream, type PushableStream } from './event-stream.ts';

const SDL = readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');

export interface SchemaDependencies {
  readonly posts: Posts;
  readonly events: PostEvents;
  readonly authorization: AuthorizationService;
  readonly policies: PolicyProvider<PolicyName>;
}

type Resolver = GraphQLFieldResolver<any, GraphQLContext, any>;
type Resolvers = Record<string, Record<string, Resolver | { subscribe: Resolver; resolve?: Resolver }>>;

/**
 * The schema of SPEC section 6 with its resolvers, and the `@authorize` directive applied: each
 * field with the directive (or on a type with it; the field's own wins) checks the caller with
 * the same authorization engine as HTTP, the field's parent object as the resource.
 */
export function createSchema(dependencies: SchemaDependencies): GraphQLSchema {
  const schema = buildSchema(SDL);
  const resolvers = createResolvers(dependencies);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    const typePolicy = policyOf(type.astNode?.directives, dependencies.policies);
    for (const [name, field] of Object.entries(type.getFields())) {
      const own = resolvers[type.name]?.[name];
      const resolve = typeof own === 'function' ? own : (own?.resolve ?? defaultFieldResolver);
      if (own && typeof own !== 'function') field.subscribe = own.subscribe;
      const policy = policyOf(field.astNode?.directives, dependencies.policies) ?? typePolicy;
      field.resolve = policy ? guarded(policy, resolve, dependencies.authorization) : resolve;
    }
  }
  return schema;
}

/** The policy an `@authorize` directive names, or one that requires any of its roles. */
function policyOf(directives: readonly ConstDirectiveNode[] | undefined, policies: PolicyProvider<PolicyName>): AuthorizationPolicy | null {
  const directive = directives?.find((d) => d.name.value === 'authorize');
  if (!directive) return null;
  const argument = (name: string) => directive.arguments?.find((a) => a.name.value === name)?.value;
  const policy = argument('policy');
  if (policy?.kind === Kind.STRING) {
    if (!policies.has(policy.value)) throw new Error(`@authorize names an unknown policy "${policy.value}".`);
    return policies.get(policy.value);
  }
  const roles = argument('roles');
  if (roles?.kind === Kind.LIST) {
    const names = roles.values.flatMap((value) => (value.kind === Kind.STRING ? [value.value] : []));
    return new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireRole(...names).build();
  }
  throw new Error('@authorize needs a policy or roles.');
}

function guarded(policy: AuthorizationPolicy, resolve: Resolver, authorization: AuthorizationService): Resolver {
  return async (parent, args, context, info) => {
    const result = await authorization.authorize(context.user, parent ?? null, policy);
    if (!result.succeeded) throw context.user.isAuthenticated ? forbidden() : unauthenticated();
    return resolve(parent, args, context, info);
  };
}

function createResolvers({ posts, events }: SchemaDependencies): Resolvers {
  return {
    Query: {
      posts: (_root, args: { first: number }) => refusals(() => posts.list(args.first)),
      post: async (_root, args: { id: string }) => posts.byId(idOf(args.id)),
      me: async (_root, _args, context) => {
        const id = userIdOf(context);
        return id === null ? null : context.users.load(id);
      },
    },
    Mutation: {
      createPost: (_root, args: { title: string; body: string }, context) => refusals(() => posts.create(context.user, args)),
      updatePost: (_root, args: { id: string; title?: string | null; body?: string | null }, context) =>
        refusals(() => posts.update(context.user, idOf(args.id), args)),
      deletePost: (_root, args: { id: string }, context) => refusals(() => posts.delete(context.user, idOf(args.id))),
    },
    Subscription: {
      postCreated: {
        subscribe: (_root, _args, context) => {
          if (!context.user.isAuthenticated) throw unauthenticated();
          return postStream(events);
        },
        resolve: (post: Post) => post,
      },
    },
    Post: {
      id: (post: Post) => String(post.id),
      authorId: (post: Post) => String(post.authorId),
      author: async (post: Post, _args, context) => {
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
      posts: (user: User, args: { first: number }, context) => refusals(() => context.postsByAuthor(checkedFirst(args.first)).load(user.id)),
    },
  };
}

/** The domain's refusals as GraphQL error codes. */
async function refusals<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof PostError)) throw error;
    if (error.reason === 'unauthenticated') throw unauthenticated();
    if (error.reason === 'forbidden') throw forbidden();
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

function userIdOf(context: GraphQLContext): number | null {
  const subject = context.user.isAuthenticated ? context.user.subject : null;
  return subject !== null && /^[1-9][0-9]*$/.test(subject) ? Number(subject) : null;
}

/** The posts published from now until the subscriber leaves. */
function postStream(events: PostEvents): PushableStream<Post> {
  return eventStream((listener) => events.subscribe(listener));
}
