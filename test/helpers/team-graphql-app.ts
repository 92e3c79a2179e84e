/**
 * An application with a GraphQL schema of its own (not the posts), written on the public entry
 * points only, as a team adopting Gatehouse would: a team's members and notes in its own memory,
 * and a ledger for accountants.
 *
 *   Member.email      @authorize(policy: "SelfOrAdmin")   a resource policy: the member read
 *   Ledger            @authorize(roles: ["Accountant"])   a rule on a type
 *   Mutation.addNote  @authorize(policy: "User")          a named policy
 *   Mutation.deleteNote                                    context.authorize(note, requirement)
 *   Subscription.noteAdded                                 signed-in callers, checked by its resolver
 *   Subscription.ledgerChanged @authorize(roles: ["Accountant"])
 *   Note.mine, Query.me                                    read the caller, under no rule
 *
 *   const team = new TeamData();
 *   const instance = await startTeamApp(databaseUrl, team, { events: createEvents({ redisUrl }) });
 */
import type { FastifyInstance } from 'fastify';
import { AssertionRequirement } from 'gatehouse-auth';
import { createLogger, loadConfig } from 'gatehouse-auth/fastify';
import { buildService } from '../../server/app.ts';
import { serviceMigrations } from '../../server/storage/service-migrations.ts';
import { loadServiceSettings } from '../../server/settings.ts';
import type { Services } from '../../src/services.ts';
import {
  authorizeDirective,
  createEvents,
  type Events,
  gatehouseGraphQL,
  type GatehouseGraphQLOptions,
  type GraphQLContext,
  type GraphQLResolvers,
  graphqlError,
} from 'gatehouse-auth/graphql';
import { createStore, type User } from 'gatehouse-auth/store';
import { gatehouseServices } from '../../src/gatehouse-internals.ts';

export const TEAM_PATH = '/team/graphql';

export interface Member {
  readonly id: number;
  readonly name: string;
  readonly email: string;
}

export interface Note {
  readonly id: number;
  readonly text: string;
  readonly authorId: number;
}

export type TeamTopics = { noteAdded: Note; ledgerChanged: number };

/** The application's own data, shared by its instances (as a database would be). */
export class TeamData {
  readonly members = new Map<number, Member>();
  readonly notes: Note[] = [];
  /** How often `Query.notes` ran: what the result cache spares. */
  notesResolved = 0;
  private version = 1;
  /** Grows with every write: answers every caller gets alike are kept while it stays. */
  readonly dataVersion = { current: () => this.version };

  addNote(text: string, authorId: number): Note {
    const note = { id: this.notes.length + 1, text, authorId };
    this.notes.push(note);
    this.version += 1;
    return note;
  }

  deleteNote(id: number): void {
    const at = this.notes.findIndex((note) => note.id === id);
    if (at >= 0) this.notes.splice(at, 1);
    this.version += 1;
  }
}

const typeDefs = [
  authorizeDirective,
  `
  type Member { id: ID!  name: String!  email: String @authorize(policy: "SelfOrAdmin") }
  type Note { id: ID!  text: String!  author: Member!  mine: Boolean! }
  type Ledger @authorize(roles: ["Accountant"]) { total: Int!  entries: Int! }
  type Query { notes: [Note!]!  members: [Member!]!  ledger: Ledger  me: String }
  type Mutation {
    addNote(text: String!): Note! @authorize(policy: "User")
    deleteNote(id: ID!): Boolean!
  }
  type Subscription {
    noteAdded: Note!
    ledgerChanged: Int! @authorize(roles: ["Accountant"])
  }
`,
];

/** What the application adds to each operation's context: its members, looked up per operation. */
interface TeamContext {
  member(id: number): Member;
}

type Context = GraphQLContext & TeamContext;

function resolvers(team: TeamData, events: Events<TeamTopics>): GraphQLResolvers<Context> {
  return {
    Query: {
      notes: () => {
        team.notesResolved += 1;
        return team.notes;
      },
      members: () => [...team.members.values()],
      ledger: () => ({ total: team.notes.length * 100, entries: team.notes.length }),
      me: (_root, _args, context: Context) => context.user.subject ?? 'anonymous',
    },
    Mutation: {
      addNote: async (_root, args: { text: string }, context: Context) => {
        const note = team.addNote(args.text, Number(context.user.subject));
        await events.publish('noteAdded', note);
        await events.publish('ledgerChanged', team.notes.length * 100);
        return note;
      },
      deleteNote: async (_root, args: { id: string }, context: Context) => {
        const note = team.notes.find((candidate) => String(candidate.id) === args.id);
        if (note === undefined) throw graphqlError('NOT_FOUND', 'There is no such note.');
        // A resource check inside the resolver, by the same engine: only the note's author.
        await context.authorize(note, [new AssertionRequirement(({ user, resource }) => user.subject === String((resource as Note).authorId))]);
        team.deleteNote(note.id);
        return true;
      },
    },
    Subscription: {
      noteAdded: {
        subscribe: (_root, _args, context: Context) => {
          if (!context.user.isAuthenticated) throw graphqlError('UNAUTHENTICATED', 'Sign in to follow the notes.');
          return events.subscribe('noteAdded');
        },
        resolve: (note: Note) => note,
      },
      ledgerChanged: { subscribe: () => events.subscribe('ledgerChanged'), resolve: (total: number) => total },
    },
    Note: {
      id: (note: Note) => String(note.id),
      author: (note: Note, _args, context: Context) => context.member(note.authorId),
      mine: (note: Note, _args, context: Context) => context.user.subject === String(note.authorId),
    },
    Member: { id: (member: Member) => String(member.id) },
  };
}

export interface TeamApp {
  readonly app: FastifyInstance;
  readonly services: Services;
  readonly events: Events<TeamTopics>;
  /** A Gatehouse user who is also a member of the team. */
  member(name: string, roles?: string[]): Promise<{ user: User; token: string }>;
  close(): Promise<void>;
}

let counter = 0;

export interface TeamAppOptions {
  readonly env?: Record<string, string>;
  /** In memory unless given. */
  readonly events?: Events<TeamTopics>;
  readonly graphql?: Partial<GatehouseGraphQLOptions<TeamContext>>;
}

/** The reference service's Gatehouse with the team's schema beside it at TEAM_PATH. */
export async function startTeamApp(databaseUrl: string, team: TeamData, options: TeamAppOptions = {}): Promise<TeamApp> {
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: databaseUrl, ...options.env });
  const store = await createStore(databaseUrl, { migrations: serviceMigrations });
  await store.migrate();
  const app = await buildService({ config, store, logger: createLogger({ level: 'silent' }), settings: loadServiceSettings({}) });
  const services = gatehouseServices(app.gatehouse);
  const events = options.events ?? createEvents<TeamTopics>();
  app.register(gatehouseGraphQL<TeamContext>, {
    path: TEAM_PATH,
    typeDefs,
    resolvers: resolvers(team, events),
    context: () => ({
      member: (id: number) => {
        const member = team.members.get(id);
        if (member === undefined) throw graphqlError('NOT_FOUND', 'No such member.');
        return member;
      },
    }),
    dataVersion: team.dataVersion,
    events,
    ...options.graphql,
  });
  try {
    await app.ready();
  } catch (error) {
    // A refused registration (what some tests look for) leaves nothing running behind it.
    await app.close();
    await store.close();
    throw error;
  }
  return {
    app,
    services,
    events,
    async member(name, roles = []) {
      counter += 1;
      const user = await services.users.create({
        email: `${name}-${counter}-${process.pid}@example.com`,
        password: `pw-${counter}-correct horse battery`,
        emailConfirmed: true,
        roles,
      });
      team.members.set(user.id, { id: user.id, name, email: user.email });
      return { user, token: (await services.accessTokens.issue(user)).token };
    },
    async close() {
      await app.close();
      await store.close();
    },
  };
}
