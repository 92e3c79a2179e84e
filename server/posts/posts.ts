import { type AuthorizationRequirement, type ClaimsPrincipal, type Clock, DenyAnonymousRequirement } from 'gatehouse-auth';
import type { Events, EventStream } from 'gatehouse-auth/graphql';
import type { DataVersion } from 'gatehouse-auth/store';
import type { Post, PostStore } from '../storage/post-store.ts';
import { oncePerEvent, type RecentEvents } from './once-per-event.ts';
import type { Announcement, OutboxPublisher } from './outbox-publisher.ts';
import { PostAuthorRequirement, PostWriterRequirement } from '../policies/post-author.ts';
import { VersionedReads } from './versioned-reads.ts';

/** Field names and what is wrong with each, as BAD_USER_INPUT reports them. */
type FieldErrors = Record<string, string[]>;

/**
 * The topics of the posts' events: `createPost` announces each new post to `postCreated`, with the
 * id of its event in the outbox.
 */
export type PostTopics = { readonly postCreated: Announcement<Post> };

/**
 * Who writes or changes a post: the caller, and the resource check of the same evaluator as HTTP
 * (the GraphQL context). A refused check throws the transport's own refusal (GraphQL's
 * `UNAUTHENTICATED` for a caller no scheme vouched for, `FORBIDDEN` for any other): the posts never
 * choose between the two.
 */
export interface PostEditor {
  readonly user: ClaimsPrincipal;
  authorize(resource: unknown, requirements: readonly AuthorizationRequirement[]): Promise<void>;
}

/** Titles 1–200 characters, bodies 1–10,000 (docs/reference/graphql.md), counted in code points. */
export const TITLE_MAX = 200;
export const BODY_MAX = 10_000;
/** `first` of the post lists. */
export const FIRST_MIN = 1;
export const FIRST_MAX = 100;

/** Why a post operation failed (authorization aside); the API layer maps it to its own error shape. */
export class PostError extends Error {
  constructor(
    readonly reason: 'invalid' | 'not-found',
    readonly errors: FieldErrors = {},
  ) {
    super(reason === 'invalid' ? 'The post is not valid.' : 'There is no such post.');
    this.name = 'PostError';
  }
}

export interface PostsOptions {
  readonly store: PostStore;
  readonly events: Events<PostTopics>;
  /** Publishes a post's stored event after its commit. */
  readonly publisher: Pick<OutboxPublisher, 'publish'>;
  /** This instance's memory of the events it delivered, shared by every subscription. */
  readonly recent: RecentEvents;
  readonly clock: Clock;
  /** The store's data version: the newest posts are read once per version, not once per request. */
  readonly dataVersion?: DataVersion | null;
}

/**
 * Posts: written by users (a principal with `sub`; an API-key client writes none), changed and
 * deleted by their author or an admin through the same resource check HTTP endpoints use.
 */
export class Posts {
  /** The newest posts by `first`, kept while the store is unchanged (versioned-reads.ts). */
  private readonly newest: VersionedReads<number, Post[]>;

  constructor(private readonly options: PostsOptions) {
    this.newest = new VersionedReads(options.dataVersion ?? null, FIRST_MAX);
  }

  list(first: number): Promise<Post[]> {
    checkFirst(first);
    return this.newest.read(first, () => this.options.store.list(first));
  }

  byId(id: number): Promise<Post | null> {
    return this.options.store.findById(id);
  }

  /** The newest `first` posts of each author, in one query. */
  byAuthors(authorIds: readonly number[], first: number): Promise<Map<number, Post[]>> {
    checkFirst(first);
    return this.options.store.listByAuthors(authorIds, first);
  }

  /**
   * The posts announced from now until the stream is returned (`postCreated`), each once, even when
   * the outbox relay sends an event again.
   */
  created(): EventStream<Post> {
    return oncePerEvent(this.options.events.subscribe('postCreated'), this.options.recent);
  }

  async create(editor: PostEditor, input: { title: string; body: string }): Promise<Post> {
    await editor.authorize(null, WRITER);
    const authorId = Number(editor.user.subject);
    checkContent(input);
    // The post and its event commit together; the event is published at once after (or, if this
    // instance dies first, by another's outbox relay).
    const { post, event } = await this.options.store.create({ authorId, title: input.title, body: input.body, createdAt: this.options.clock.now() });
    await this.options.publisher.publish(event);
    return post;
  }

  async update(editor: PostEditor, id: number, change: { title?: string | null; body?: string | null }): Promise<Post> {
    const post = await this.authorized(editor, id);
    const title = change.title ?? undefined;
    const body = change.body ?? undefined;
    checkContent({ title, body });
    const updated = await this.options.store.update(post.id, { ...(title !== undefined ? { title } : {}), ...(body !== undefined ? { body } : {}) });
    if (updated === null) throw new PostError('not-found');
    return updated;
  }

  async delete(editor: PostEditor, id: number): Promise<boolean> {
    const post = await this.authorized(editor, id);
    return this.options.store.delete(post.id);
  }

  /** The post, when the caller may change it (author or Admin); an anonymous caller is refused before the post is looked up. */
  private async authorized(editor: PostEditor, id: number): Promise<Post> {
    await editor.authorize(null, SIGNED_IN);
    const post = await this.options.store.findById(id);
    if (post === null) throw new PostError('not-found');
    await editor.authorize(post, AUTHOR);
    return post;
  }
}

const SIGNED_IN = [new DenyAnonymousRequirement()];
const WRITER = [new PostWriterRequirement()];
const AUTHOR = [new PostAuthorRequirement()];

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
