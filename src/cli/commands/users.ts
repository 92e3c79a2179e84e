import { readFile } from 'node:fs/promises';
import { AspNetImportError } from '../../identity/aspnet-import.ts';
import { CLI_OPERATOR } from '../../membership/actor.ts';
import type { Membership } from '../../membership/membership.ts';
import type { UserAdministration } from '../../membership/user-administration.ts';
import type { User, UserClaim } from '../../store/ports.ts';
import { CliError } from '../cli-error.ts';
import { parse, refusable, required } from '../args.ts';
import type { CliOutput } from '../io.ts';
import { readFirstLine } from '../standard-input.ts';

/** `gatehouse users …` */
export async function usersCommand(args: string[], { users }: Membership, out: CliOutput): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'add':
      return addUser(rest, users, out);
    case 'list':
      return listUsers(rest, users, out);
    case 'roles':
      return changeRoles(rest, users, out);
    case 'claims':
      return changeClaims(rest, users, out);
    case 'unlock':
      return unlockUser(rest, users);
    case 'delete':
      return deleteUser(rest, users);
    case 'import':
      return importUsers(rest, users, out);
    default:
      throw CliError.usage(`unknown command "users ${sub ?? ''}"; try: users add|list|roles|claims|unlock|delete|import`);
  }
}

async function addUser(args: string[], users: UserAdministration, out: CliOutput): Promise<void> {
  const { values } = parse(args, {
    email: { type: 'string' },
    password: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    name: { type: 'string' },
    role: { type: 'string', multiple: true },
    claim: { type: 'string', multiple: true },
    confirmed: { type: 'boolean' },
  });
  const email = required(values.email, '--email');
  const password = await passwordOf(values.password, values['password-stdin'] ?? false);
  const user = await refusable(() =>
    users.create({
      email,
      password,
      userName: values.name ?? null,
      roles: values.role ?? [],
      claims: (values.claim ?? []).map(parseClaim),
      emailConfirmed: values.confirmed ?? false,
    }),
  );
  out.result(String(user.id));
}

/** `--password P`, or `--password-stdin`: the first line of standard input, so that it shows in no process list. */
async function passwordOf(flag: string | undefined, fromStdin: boolean): Promise<string> {
  if (flag !== undefined && fromStdin) throw CliError.usage('give --password or --password-stdin, not both');
  if (!fromStdin) return required(flag, '--password (or --password-stdin)');
  const line = await readFirstLine(process.stdin);
  if (line === null) throw CliError.usage('--password-stdin: standard input is empty');
  return line;
}

/** `users import --aspnet FILE`: prints the number imported; each skipped or changed row is noted on standard error. */
async function importUsers(args: string[], users: UserAdministration, out: CliOutput): Promise<void> {
  const { values } = parse(args, { aspnet: { type: 'string' } });
  const file = required(values.aspnet, '--aspnet');
  let content: string;
  try {
    content = await readFile(file, 'utf8');
  } catch (error) {
    throw CliError.refused(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  try {
    const report = await users.importAspNet(content);
    for (const note of report.notes) out.message(note);
    out.result(String(report.imported));
  } catch (error) {
    if (error instanceof AspNetImportError) throw CliError.refused(`nothing imported: ${error.message}`);
    throw error;
  }
}

async function listUsers(args: string[], users: UserAdministration, out: CliOutput): Promise<void> {
  const { values } = parse(args, { json: { type: 'boolean' } });
  for (const summary of await users.list()) {
    out.result(
      values.json
        ? JSON.stringify(summary)
        : [summary.id, summary.email, summary.userName ?? '-', summary.roles.join(',') || '-', summary.lockedOut ? 'locked' : 'active', summary.emailConfirmed ? 'confirmed' : 'unconfirmed'].join('\t'),
    );
  }
}

async function changeRoles(args: string[], users: UserAdministration, out: CliOutput): Promise<void> {
  const [action, ...rest] = args;
  if (action !== 'add' && action !== 'remove') throw CliError.usage('usage: users roles add|remove --email E --role R');
  const { values } = parse(rest, { email: { type: 'string' }, role: { type: 'string' } });
  const email = required(values.email, '--email');
  const role = required(values.role, '--role');
  const user = await userByEmail(users, email);
  if (action === 'add') {
    const added = await refusable(() => users.addRole(user.id, role, CLI_OPERATOR));
    if (!added) out.message(`${user.email} already has the role ${role}`);
  } else if (!(await users.removeRole(user.id, role, CLI_OPERATOR))) {
    throw CliError.refused(`${user.email} does not have the role ${role}`);
  }
}

async function changeClaims(args: string[], users: UserAdministration, out: CliOutput): Promise<void> {
  const [action, ...rest] = args;
  if (action !== 'add' && action !== 'remove') throw CliError.usage('usage: users claims add|remove --email E --claim type=value');
  const { values } = parse(rest, { email: { type: 'string' }, claim: { type: 'string' } });
  const email = required(values.email, '--email');
  const claim = parseClaim(required(values.claim, '--claim'));
  const user = await userByEmail(users, email);
  if (action === 'add') {
    const added = await refusable(() => users.addClaim(user.id, claim));
    if (!added) out.message(`${user.email} already has the claim ${claim.type}=${claim.value}`);
  } else if (!(await users.removeClaim(user.id, claim))) {
    throw CliError.refused(`${user.email} does not have the claim ${claim.type}=${claim.value}`);
  }
}

async function unlockUser(args: string[], users: UserAdministration): Promise<void> {
  const { values } = parse(args, { email: { type: 'string' } });
  const user = await userByEmail(users, required(values.email, '--email'));
  await users.unlock(user.id, CLI_OPERATOR);
}

async function deleteUser(args: string[], users: UserAdministration): Promise<void> {
  const { values } = parse(args, { email: { type: 'string' } });
  const user = await userByEmail(users, required(values.email, '--email'));
  await users.delete(user.id, CLI_OPERATOR);
}

async function userByEmail(users: UserAdministration, email: string): Promise<User> {
  const user = await users.findByEmail(email);
  if (!user) throw CliError.refused(`no user has the e-mail ${email}`);
  return user;
}

function parseClaim(text: string): UserClaim {
  const separator = text.indexOf('=');
  if (separator <= 0) throw CliError.usage(`a claim is written type=value (got "${text}")`);
  return { type: text.slice(0, separator), value: text.slice(separator + 1) };
}

