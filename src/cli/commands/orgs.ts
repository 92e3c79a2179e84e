import { CLI_OPERATOR } from '../../membership/actor.ts';
import type { Membership } from '../../membership/membership.ts';
import type { UserAdministration } from '../../membership/user-administration.ts';
import type { Organizations } from '../../organizations/organizations.ts';
import { GatehouseError } from '../../security/errors.ts';
import type { OrganizationSummary, User } from '../../store/ports.ts';
import { CliError } from '../cli-error.ts';
import type { CliOutput } from '../io.ts';
import { parse, refusable, required } from '../args.ts';

/** `gatehouse orgs …` */
export async function orgsCommand(args: string[], membership: Membership, out: CliOutput): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create':
      return createOrganization(rest, membership, out);
    case 'members':
      return changeMembers(rest, membership);
    case 'list':
      return listOrganizations(rest, membership.organizations, out);
    default:
      throw CliError.usage(`unknown command "orgs ${sub ?? ''}"; try: orgs create|members|list`);
  }
}

/** Prints the new organization's id alone, as `users add` does, so that `$(…)` feeds `--org`. */
async function createOrganization(args: string[], { users, organizations }: Membership, out: CliOutput): Promise<void> {
  const { values } = parse(args, { name: { type: 'string' }, slug: { type: 'string' }, 'owner-email': { type: 'string' } });
  const name = required(values.name, '--name');
  const ownerEmail = required(values['owner-email'], '--owner-email');
  const owner = await userByEmail(users, ownerEmail);
  const organization = await refusable(() => organizations.createOwnedBy(owner.id, { name, slug: values.slug }, CLI_OPERATOR));
  out.result(String(organization.id));
}

/** `orgs members add`: prints nothing, as `users roles add` does; roles are added to the member's own. */
async function changeMembers(args: string[], { users, organizations }: Membership): Promise<void> {
  const [action, ...rest] = args;
  if (action !== 'add') throw CliError.usage('usage: orgs members add --org ID --email E --role R [--role R]…');
  const { values } = parse(rest, { org: { type: 'string' }, email: { type: 'string' }, role: { type: 'string', multiple: true } });
  const organizationId = parseOrganizationId(required(values.org, '--org'));
  const email = required(values.email, '--email');
  const roles = values.role ?? [];
  if (roles.length === 0) throw CliError.usage('--role is required');
  const user = await userByEmail(users, email);
  await refusable(() => organizations.addMember(organizationId, user.id, roles, CLI_OPERATOR).catch(unknownOrganization(organizationId)));
}

async function listOrganizations(args: string[], organizations: Organizations, out: CliOutput): Promise<void> {
  const { values } = parse(args, { json: { type: 'boolean' } });
  for (const organization of await organizations.list()) {
    out.result(values.json ? JSON.stringify(summaryOf(organization)) : tableRow(organization));
  }
}

/** The fields the command line promises, whatever else a summary comes to carry. */
function summaryOf({ id, name, slug, members }: OrganizationSummary): { id: number; name: string; slug: string; members: number } {
  return { id, name, slug, members };
}

/** The name last: it is the one column that may hold spaces. */
function tableRow({ id, slug, members, name }: OrganizationSummary): string {
  return [id, slug, `${members} member${members === 1 ? '' : 's'}`, name].join('\t');
}

/** An id is a positive integer; anything else is a mistyped flag (exit 2), not an unknown organization. */
function parseOrganizationId(text: string): number {
  if (!/^[1-9]\d{0,15}$/.test(text)) throw CliError.usage(`--org takes an organization's id, a positive integer (got "${text}")`);
  return Number(text);
}

/**
 * The store says "no such organization or user" alike; the user was found a moment ago, so the
 * organization is the one the operator mistyped.
 */
function unknownOrganization(organizationId: number): (error: unknown) => never {
  return (error) => {
    if (error instanceof GatehouseError && error.code === 'GH_NOT_FOUND') throw CliError.refused(`no organization has the id ${organizationId}`);
    throw error;
  };
}

async function userByEmail(users: UserAdministration, email: string): Promise<User> {
  const user = await users.findByEmail(email);
  if (!user) throw CliError.refused(`no user has the e-mail ${email}`);
  return user;
}
