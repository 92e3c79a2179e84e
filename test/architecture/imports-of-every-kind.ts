/**
 * Compiled, never run: one import of each kind the module graph must see (a package's types, a
 * re-export, a value, a dynamic `import()`), read by the graph's own tests in layering.test.ts.
 */
import type { FastifyReply } from 'fastify';
import { sendProblem } from '../../src/http/problem.ts';

export type { PolicyName } from '../../src/security/authorization/policy-names.ts';

export async function refuse(reply: FastifyReply): Promise<FastifyReply> {
  const { problem } = await import('../../src/security/problem-details.ts');
  return sendProblem(reply, problem('GH_FORBIDDEN'));
}
