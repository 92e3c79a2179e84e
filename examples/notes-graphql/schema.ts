/**
 * The board's GraphQL schema: SDL with `@authorize` rules, and its resolvers.
 *
 *   Note.privateRemarks   @authorize(policy: "NoteAuthor")   a resource policy: the note is the resource
 *   TeamStats             @authorize(roles: ["Lead"])         a rule on a type, for each of its fields
 *   Query.notes, Query.note, Mutation.*, Subscription.noteAdded   @authorize(policy: "Members")
 *   Mutation.deleteNote   context.authorize(note, 'NoteAuthor')   a resource check inside a resolver
 */
import type { Clock, PolicyName } from 'gatehouse-auth';
import { authorizeDirective, type Events, type GraphQLContext, graphqlError, type GraphQLResolvers } from 'gatehouse-auth/graphql';
import type { Note, NoteBoard } from './note.ts';
import { LEAD_ROLE } from './policies.ts';

/** What the mutations publish and the subscriptions deliver: plain data (it crosses Redis as JSON). */
export type NoteTopics = { noteAdded: Note };

export const typeDefs = [
  authorizeDirective,
  `
  type Note {
    id: ID!
    authorId: ID!
    text: String!
    createdAt: String!
    privateRemarks: String @authorize(policy: "NoteAuthor")
  }

  type TeamStats @authorize(roles: ["${LEAD_ROLE}"]) {
    notes: Int!
    authors: Int!
  }

  type Query {
    notes: [Note!]! @authorize(policy: "Members")
    note(id: ID!): Note @authorize(policy: "Members")
    stats: TeamStats
  }

  type Mutation {
    addNote(text: String!, privateRemarks: String): Note! @authorize(policy: "Members")
    deleteNote(id: ID!): Boolean! @authorize(policy: "Members")
  }

  type Subscription {
    noteAdded: Note! @authorize(policy: "Members")
  }
`,
];

/** What the application adds to each operation's context (see app.ts: `context`). */
export interface BoardContext {
  readonly board: NoteBoard;
}

/** Every resolver's context: Gatehouse's (the caller, `authorize` by declared policy name) and the board. */
export type NotesContext = GraphQLContext<PolicyName> & BoardContext;

const MAX_TEXT = 2_000;

export function notesResolvers(events: Events<NoteTopics>, clock: Clock): GraphQLResolvers<NotesContext> {
  return {
    Query: {
      notes: (_root, _args, { board }: NotesContext) => board.list(),
      note: (_root, args: { id: string }, { board }: NotesContext) => board.find(Number(args.id)) ?? null,
      stats: (_root, _args, { board }: NotesContext) => ({ notes: board.list().length, authors: board.authors() }),
    },
    Mutation: {
      addNote: async (_root, args: { text: string; privateRemarks?: string | null }, context: NotesContext) => {
        const text = args.text.trim();
        if (text === '' || text.length > MAX_TEXT || (args.privateRemarks?.length ?? 0) > MAX_TEXT) {
          throw graphqlError('BAD_USER_INPUT', `A note needs a text of 1 to ${MAX_TEXT} characters, and remarks of at most ${MAX_TEXT}.`);
        }
        // `Members` guarantees a user: their id is the token's subject.
        const note = context.board.add({ authorId: Number(context.user.subject), text, privateRemarks: args.privateRemarks ?? null }, new Date(clock.now()));
        await events.publish('noteAdded', note);
        return note;
      },
      deleteNote: async (_root, args: { id: string }, context: NotesContext) => {
        const note = context.board.find(Number(args.id));
        if (note === undefined) throw graphqlError('NOT_FOUND', 'There is no such note.');
        // FORBIDDEN unless the caller wrote it: the same policy as the field's, by its declared name.
        await context.authorize(note, 'NoteAuthor');
        context.board.remove(note.id);
        return true;
      },
    },
    Subscription: {
      // Each subscriber resolves the note for themselves: only its author reads the remarks.
      noteAdded: { subscribe: () => events.subscribe('noteAdded'), resolve: (note: Note) => note },
    },
  };
}
