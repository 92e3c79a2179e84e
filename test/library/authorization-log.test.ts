/**
 * Why a request was refused, in the application's log at debug level (the answer names no
 * requirement): the requirements no handler met, by description, and the handlers' reasons.
 */
import Fastify from 'fastify';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type AuthorizationHandlerContext, type AuthorizationRequirement, ResourceRequirementHandler } from 'gatehouse-auth';
import { configFromSettings, createLogger, gatehouse, serverOptions } from 'gatehouse-auth/fastify';
import { bearer } from '../helpers/test-app.ts';
import { gatehouseServices } from '../../src/gatehouse-internals.ts';

class ProjectEditorRequirement implements AuthorizationRequirement {
  readonly description = 'the project’s owner';
}

class ProjectEditorHandler extends ResourceRequirementHandler<ProjectEditorRequirement, { ownerId: string }> {
  constructor() {
    super(ProjectEditorRequirement, (resource): resource is { ownerId: string } => typeof (resource as { ownerId?: unknown }).ownerId === 'string');
  }

  protected handleRequirement(context: AuthorizationHandlerContext, requirement: ProjectEditorRequirement, project: { ownerId: string }): void {
    if (context.user.subject === project.ownerId) context.succeed(requirement);
    else context.fail('someone else’s project');
  }
}

async function application(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  const settings = { databaseUrl: 'sqlite::memory:' };
  const app = Fastify(serverOptions(configFromSettings(settings), createLogger({ level, destination })));
  await app.register(gatehouse, { settings, handlers: [new ProjectEditorHandler()] });
  app.get('/projects/1', async (request) => {
    await request.authorize({ ownerId: 'someone-else' }, new ProjectEditorRequirement());
    return {};
  });
  await app.ready();
  const user = await app.gatehouse.users.create({ email: 'ada@example.com', password: 'correct horse battery staple', emailConfirmed: true });
  const { token } = await gatehouseServices(app.gatehouse).accessTokens.issue(user);
  return { app, lines, token, userId: String(user.id) };
}

describe('The log of a refused authorization', () => {
  it('names the unmet requirement and the handler’s reason at debug level', async () => {
    const { app, lines, token, userId } = await application('debug');
    try {
      expect((await app.inject({ url: '/projects/1', headers: bearer(token) })).statusCode).toBe(403);
      const failures = lines.filter((line) => line.msg === 'authorization failed: these requirements were not met');
      expect(failures).toEqual([
        expect.objectContaining({ level: 20, requirements: ['the project’s owner'], reasons: ['someone else’s project'], failCalled: true, subject: userId }),
      ]);
    } finally {
      await app.close();
    }
  });

  it('writes nothing of it at info level', async () => {
    const { app, lines, token } = await application('info');
    try {
      expect((await app.inject({ url: '/projects/1', headers: bearer(token) })).statusCode).toBe(403);
      expect(lines.some((line) => String(line.msg).startsWith('authorization failed'))).toBe(false);
    } finally {
      await app.close();
    }
  });
});
