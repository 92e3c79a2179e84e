import { PostAuthorRequirement } from '../../server/policies/post-author.ts';
import type { Clock } from '../platform/clock.ts';
import type { AuthorizationService } from '../security/authorization/index.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';
import type { FieldErrors } from '../security/errors.ts';
import type { Post, PostStore } from '../store/ports.ts';
import type { PostEvents } from './post-events.ts';

/** Titles 1–200 characters, bodies 1–10,000 (SPEC section 6), counted in code points. */
export const TITLE_MAX = 200;
export const BODY_MAX = 10_000;
/** `first` of the post lists. */
export const FIRST_MIN = 1;
export const FIRST_MAX = 100;

/** Why a post operation was refused; the API layer maps it to its own error shape. */
export class PostError extends Error {
  constructor(
    readonly reason: 'invalid' | 'not-found' | 'unauthenticated' | 'forbidden',
    readonly errors: FieldErrors = {},
  ) {
    super(reason === 'invalid' ? 'The post is not valid.' : `Refused: ${reason}.`);
    this.name = 'PostError';
  }
}

export interface PostsOptions {
  readonly store: PostStore;
  readonly events: PostEvents;
  readonly authorization: AuthorizationService;
  readonly clock: Clock;
}

/**
 * Posts: written by users (a principal with `sub`; an API-key client writes none), changed and
 * deleted by their author or an admin through the same resource check HTTP endpoints use.
 */
export class Posts {
  constructor(private readonly options: PostsOptions) {}

  list(first: number): Promise<Post[]> {
    checkFirst(first);
    return this.options.store.list(first);
  }

  byId(id: number): Promise<Post | null> {
    return this.options.store.findById(id);
  }

  /** The newest `first` posts of each author, in one query. */
  byAuthors(authorIds: readonly number[], first: number): Promise<Map<number, Post[]>> {
    checkFirst(first);
    return this.options.store.listByAuthors(authorIds, first);
  }

  async create(user: ClaimsPrincipal, input: { title: string; body: string }): Promise<Post> {
    const authorId = authorOf(user);
    checkContent(input);
    const post = await this.options.store.create({ authorId, title: input.title, body: input.body, createdAt: this.options.clock.now() });
    await this.options.events.publish(post);
    return post;
  }

  async update(user: ClaimsPrincipal, id: number, change: { title?: string | null; body?: string | null }): Promise<Post> {
    const post = await this.authorized(user, id);
    const title = change.title ?? undefined;
    const body = change.body ?? undefined;
    checkContent({ title, body });
    const updated = await this.options.store.update(post.id, { ...(title !== undefined ? { title } : {}), ...(body !== undefined ? { body } : {}) });
    if (updated === null) throw new PostError('not-found');
    return updated;
  }

  async delete(user: ClaimsPrincipal, id: number): Promise<boolean> {
    const post = await this.authorized(user, id);
    return this.options.store.delete(post.id);
  }

  /** The post, when the caller may change it (author or Admin). */
  private async authorized(user: ClaimsPrincipal, id: number): Promise<Post> {
    if (!user.isAuthenticated) throw new PostError('unauthenticated');
    const post = await this.options.store.findById(id);
    if (post === null) throw new PostError('not-found');
    const result = await this.options.authorization.authorize(user, post, [new PostAuthorRequirement()]);
    if (!result.succeeded) throw new PostError('forbidden');
    return post;
  }
}

function authorOf(user: ClaimsPrincipal): number {
  if (!user.isAuthenticated) throw new PostError('unauthenticated');
  const id = user.subject === null ? Number.NaN : Number(user.subject);
  // An API-key client is authenticated but no user: it may not write as one.
  if (!Number.isInteger(id)) throw new PostError('forbidden');
  return id;
}

function checkContent({ title, body }: { title?: string | undefined; body?: string | undefined }): void {
  const errors: FieldErrors = {};
  if (title !== undefined && !within(title, TITLE_MAX)) errors.title = [`A title has 1 to ${TITLE_MAX} characters.`];
  if (body !== undefined && !within(body, BODY_MAX)) errors.body = [`A body has 1 to ${BODY_MAX} characters.`];
  if (Object.keys(errors).length > 0) throw new PostError('invalid', errors);
}

function within(text: string, max: number): boolean {
  const length = [...text].length;
  return text.trim() !== '' && length >= 1 && length <= max;
}

function checkFirst(first: number): void {
  if (!Number.isInteger(first) || first < FIRST_MIN || first > FIRST_MAX) {
    throw new PostError('invalid', { first: [`first is from ${FIRST_MIN} to ${FIRST_MAX}.`] });
  }
}
