/**
 * The multi-tenant help desk of docs/organizations.md, written on the public entry points only
 * (under a table prefix): tickets in the application's table, tied to Gatehouse's organizations
 * by a foreign key; routes guarded by `organizationRole`, `organizationMember` and
 * `organizationAdmin`; a GraphQL subscription filtered with `withinActiveOrganization`; and
 * `me { organizations activeOrganization }` from `organizationFields`.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Generated, Kysely } from 'kysely';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatehouseError, organizationAdmin, organizationMember, organizationRole } from 'gatehouse-auth';
import { configFromSettings, gatehouse, serverOptions } from 'gatehouse-auth/fastify';
import { createEvents, gatehouseGraphQL, organizationFields, withinActiveOrganization, type GraphQLContext } from 'gatehouse-auth/graphql';
import type { ApplicationMigrations } from 'gatehouse-auth/store';
import { openSocket } from '../helpers/graphql-socket.ts';
import { bearer, json } from '../helpers/test-app.ts';

interface Ticket {
  id: number;
  organizationId: number;
  title: string;
}
interface DeskTables {
  tickets: { id: Generated<number>; organization_id: number; title: string };
}

const migrations: ApplicationMigrations = {
  '0001-tickets': {
    async up(db, { engine, tableName }) {
      await db.schema
        .createTable('tickets')
        .addColumn('id', 'integer', (c) => (engine === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity()))
        .addColumn('organization_id', 'integer', (c) => c.notNull().references(`${tableName('organizations')}.id`).onDelete('cascade'))
        .addColumn('title', 'text', (c) => c.notNull())
        .execute();
    },
  },
};

const typeDefs = `
  type Ticket { id: ID! title: String! }
  type Organization { id: ID! name: String! roles: [String!]! }
  type Me { organizations: [Organization!]! activeOrganization: Organization }
  type Query { me: Me }
  type Subscription { ticketOpened: Ticket! }
`;

let folder: string;
let app: FastifyInstance;
let wsUrl: string;

async function deskApplication(databaseUrl: string): Promise<FastifyInstance> {
  const settings = { databaseUrl, publicUrl: 'http://desk.test', organizationRoles: ['Agent'] };
  const desk = Fastify(serverOptions(configFromSettings(settings)));
  await desk.register(gatehouse, { settings, tablePrefix: 'gh_', migrations, features: { organizations: true } });
  const tickets = (): Kysely<DeskTables> => desk.gatehouse.store.database.kysely<DeskTables>();
  const events = createEvents<{ ticketOpened: Ticket }>();
  const fields = organizationFields(desk.gatehouse.organizations);
  const agentThere = organizationRole(['Agent', 'OrgAdmin']);

  desk.post<{ Body: { title: string } }>('/tickets', async (request, reply) => {
    const organizationId = Number(request.user.findFirst('org_id')?.value);
    await request.authorize({ organizationId }, agentThere);
    const row = await tickets().insertInto('tickets').values({ organization_id: organizationId, title: request.body.title }).returning(['id', 'title']).executeTakeFirstOrThrow();
    const ticket = { id: row.id, organizationId, title: row.title };
    await events.publish('ticketOpened', ticket);
    return reply.code(201).send(ticket);
  });
  desk.get<{ Params: { id: string } }>('/tickets/:id', async (request) => {
    const row = await tickets().selectFrom('tickets').selectAll().where('id', '=', Number(request.params.id)).executeTakeFirst();
    if (!row) throw GatehouseError.notFound('There is no such ticket.');
    const ticket = { id: row.id, organizationId: row.organization_id, title: row.title };
    await request.authorize(ticket, organizationMember());
    return ticket;
  });
  desk.delete<{ Params: { id: string } }>('/tickets/:id', async (request, reply) => {
    const row = await tickets().selectFrom('tickets').selectAll().where('id', '=', Number(request.params.id)).executeTakeFirst();
    if (!row) throw GatehouseError.notFound('There is no such ticket.');
    await request.authorize({ organizationId: row.organization_id }, organizationAdmin());
    await tickets().deleteFrom('tickets').where('id', '=', row.id).execute();
    return reply.code(204).send();
  });
  await desk.register(gatehouseGraphQL, {
    typeDefs,
    resolvers: {
      Query: { me: (_root: unknown, _args: unknown, context: GraphQLContext) => (context.user.subject === null ? null : {}) },
      Me: {
        organizations: (_me: unknown, _args: unknown, context: GraphQLContext) => fields.organizationsOf(Number(context.user.subject)),
        activeOrganization: (_me: unknown, _args: unknown, context: GraphQLContext) => fields.activeOrganizationOf(context.user),
      },
      Subscription: {
        ticketOpened: {
          subscribe: (_root: unknown, _args: unknown, context: GraphQLContext) =>
            withinActiveOrganization(events.subscribe('ticketOpened'), context, (ticket) => ticket.organizationId),
          resolve: (ticket: Ticket) => ticket,
        },
      },
    },
  });
  desk.addHook('onClose', () => events.close());
  return desk;
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'gatehouse-desk-'));
  app = await deskApplication(`sqlite:${join(folder, 'desk.db')}`);
  wsUrl = `${(await app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws')}/graphql`;
});
afterAll(async () => {
  await app?.close();
  await rm(folder, { recursive: true, force: true });
});

const PASSWORD = 'correct horse battery staple';

async function person(email: string) {
  const user = await app.gatehouse.users.create({ email, password: PASSWORD, emailConfirmed: true });
  return user;
}

async function tokenIn(email: string, organizationId: number | null): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/auth/token', payload: { email, password: PASSWORD, organizationId } });
  expect(response.statusCode).toBe(200);
  return json<{ accessToken: string }>(response).accessToken;
}

describe('a multi-tenant help desk on organizations', () => {
  it('keeps each organization\'s tickets to its agents, and its subscription to its own events', async () => {
    const owner = await person('owner@acme.test');
    const agent = await person('agent@acme.test');
    const outsider = await person('agent@globex.test');
    const acme = await app.gatehouse.organizations.createOwnedBy(owner.id, { name: 'Acme' });
    const globex = await app.gatehouse.organizations.createOwnedBy(outsider.id, { name: 'Globex' });
    await app.gatehouse.organizations.addMember(acme.id, agent.id, ['Agent']);

    const agentToken = await tokenIn(agent.email, acme.id);
    const outsiderToken = await tokenIn(outsider.email, globex.id);
    const agentSocket = openSocket(wsUrl, { connectionParams: { authorization: `Bearer ${agentToken}` } });
    const outsiderSocket = openSocket(wsUrl, { connectionParams: { authorization: `Bearer ${outsiderToken}` } });
    await Promise.all([agentSocket.connected, outsiderSocket.connected]);
    const agentSees = agentSocket.subscribe('subscription { ticketOpened { title } }');
    const outsiderSees = outsiderSocket.subscribe('subscription { ticketOpened { title } }');
    expect(await agentSocket.execute('{ me { organizations { id name roles } activeOrganization { name } } }')).toEqual({
      data: { me: { organizations: [{ id: String(acme.id), name: 'Acme', roles: ['Agent'] }], activeOrganization: { name: 'Acme' } } },
    });

    const opened = await app.inject({ method: 'POST', url: '/tickets', headers: bearer(agentToken), payload: { title: 'Printer on fire' } });
    expect(opened.statusCode).toBe(201);
    const ticket = json<Ticket>(opened);
    const globexTicket = json<Ticket>(await app.inject({ method: 'POST', url: '/tickets', headers: bearer(outsiderToken), payload: { title: 'Globex only' } }));
    await agentSees.receivedCount(1);
    await outsiderSees.receivedCount(1);
    expect(agentSees.received.map((each) => each.data)).toEqual([{ ticketOpened: { title: 'Printer on fire' } }]);
    expect(outsiderSees.received.map((each) => each.data)).toEqual([{ ticketOpened: { title: 'Globex only' } }]);

    expect((await app.inject({ url: `/tickets/${ticket.id}`, headers: bearer(agentToken) })).statusCode).toBe(200);
    expect((await app.inject({ url: `/tickets/${ticket.id}`, headers: bearer(outsiderToken) })).statusCode).toBe(403);
    expect((await app.inject({ url: `/tickets/${globexTicket.id}`, headers: bearer(agentToken) })).statusCode).toBe(403);
    // Deleting is for the organization's admins: the owner (OrgAdmin of Acme), not the agent.
    expect((await app.inject({ method: 'DELETE', url: `/tickets/${ticket.id}`, headers: bearer(agentToken) })).statusCode).toBe(403);
    expect((await app.inject({ method: 'DELETE', url: `/tickets/${ticket.id}`, headers: bearer(await tokenIn(owner.email, acme.id)) })).statusCode).toBe(204);
    await Promise.all([agentSocket.dispose(), outsiderSocket.dispose()]);
  });

  it('ends a removed agent\'s access: the token is refused, its socket closes 4403, and a new token has no organization', async () => {
    const owner = await person('owner@initech.test');
    const agent = await person('agent@initech.test');
    const initech = await app.gatehouse.organizations.createOwnedBy(owner.id, { name: 'Initech' });
    await app.gatehouse.organizations.addMember(initech.id, agent.id, ['Agent']);
    const token = await tokenIn(agent.email, initech.id);
    const socket = openSocket(wsUrl, { connectionParams: { authorization: `Bearer ${token}` } });
    await socket.connected;
    await app.gatehouse.organizations.removeAs(initech.id, agent.id);
    expect((await socket.closedWithin(5_000)).code).toBe(4403);
    expect((await app.inject({ method: 'POST', url: '/tickets', headers: bearer(token), payload: { title: 'Too late' } })).statusCode).toBe(401);
    const fresh = await app.inject({ method: 'POST', url: '/tickets', headers: bearer(await tokenIn(agent.email, null)), payload: { title: 'Nowhere' } });
    expect(fresh.statusCode).toBe(403);
    // The organization's tickets go with it (the foreign key to Gatehouse's table).
    await app.inject({ method: 'POST', url: '/tickets', headers: bearer(await tokenIn(owner.email, initech.id)), payload: { title: 'Last' } });
    await app.gatehouse.organizations.deleteAs(initech.id);
    const left = await app.gatehouse.store.database.kysely<DeskTables>().selectFrom('tickets').select('id').where('organization_id', '=', initech.id).execute();
    expect(left).toEqual([]);
  });
});
