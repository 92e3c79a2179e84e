/**
 * A policy whose requirement no handler handles always fails its check: the plugin says so once,
 * when the application is ready, naming the policy and the requirement's class. Built-in
 * requirements handle themselves, and a requirement of a registered handler is not named.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AuthorizationHandlerContext,
  AuthorizationPolicyBuilder,
  type AuthorizationRequirement,
  RequirementHandler,
} from 'gatehouse-auth';
import { configFromSettings, gatehouse, type GatehouseOptions, serverOptions } from 'gatehouse-auth/fastify';

class InvoiceOwner implements AuthorizationRequirement {}
class Approver implements AuthorizationRequirement {}

class ApproverHandler extends RequirementHandler<Approver> {
  constructor() {
    super(Approver);
  }

  protected handleRequirement(context: AuthorizationHandlerContext, requirement: Approver): void {
    if (context.user.isInRole('Approver')) context.succeed(requirement);
  }
}

const apps: FastifyInstance[] = [];

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** The plugin's warnings up to `ready`, each as its log record. */
async function warningsAtReady(options: Omit<GatehouseOptions, 'settings'>): Promise<{ msg: string }[]> {
  const lines: string[] = [];
  const settings = { databaseUrl: 'sqlite::memory:' };
  const logger = { level: 'warn', stream: { write: (line: string) => lines.push(line) } };
  const app = Fastify({ ...serverOptions(configFromSettings(settings)), logger });
  apps.push(app);
  await app.register(gatehouse, { settings, ...options });
  const registered = lines.length;
  await app.ready();
  return lines
    .slice(registered)
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((record) => record.level === 40);
}

const policy = (...requirements: AuthorizationRequirement[]) =>
  requirements.reduce((builder, requirement) => builder.addRequirement(requirement), new AuthorizationPolicyBuilder().requireAuthenticatedUser()).build();

describe('a requirement no handler handles', () => {
  it('is named with its policy in one warning at ready', async () => {
    const warnings = await warningsAtReady({
      policies: { Invoices: policy(new InvoiceOwner(), new Approver()), Approvals: policy(new Approver()) } as unknown as GatehouseOptions['policies'],
      handlers: [new ApproverHandler()],
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(/^policy "Invoices" has requirements no handler decides \(InvoiceOwner\): its checks always fail/);
    expect(warnings[0]!.msg).not.toMatch(/Approver|Approvals/);
  });

  it('of the fallback policy is named too', async () => {
    const warnings = await warningsAtReady({ fallbackPolicy: policy(new InvoiceOwner()) });
    expect(warnings.map((warning) => warning.msg)).toEqual([expect.stringMatching(/the fallback policy.*\bInvoiceOwner\b/)]);
  });

  it('is not warned of for built-in requirements and requirements with handlers', async () => {
    const builtIns = new AuthorizationPolicyBuilder()
      .requireAuthenticatedUser()
      .requireRole('Accountant')
      .requireClaim('department', 'finance')
      .requireUserName('ada@example.com')
      .requireAssertion(() => true)
      .build();
    const warnings = await warningsAtReady({
      policies: { BuiltIns: builtIns, Approvals: policy(new Approver()) } as unknown as GatehouseOptions['policies'],
      handlers: [new ApproverHandler()],
    });
    expect(warnings).toEqual([]);
  });
});
