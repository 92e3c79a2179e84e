import type { Clock } from '../platform/clock.ts';
import type { NewUser, UserStore } from '../store/ports.ts';
import { aspNetPasswordHashProblem } from './aspnet-password-hash.ts';
import { isValidEmail, normalizeEmail, normalizeUserName, USER_NAME_PATTERN } from './normalize.ts';

/** A row of ASP.NET Core Identity's `AspNetUsers`, as exported for `users import --aspnet` (docs/reference/cli.md). */
interface AspNetUserRow {
  readonly Id: string;
  readonly UserName: string | null;
  readonly Email: string;
  readonly EmailConfirmed: boolean;
  readonly PasswordHash: string | null;
  readonly Roles: readonly string[];
}

/** The file cannot be imported as it is; nothing was written. */
export class AspNetImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AspNetImportError';
  }
}

export interface AspNetImportReport {
  readonly imported: number;
  /** One line per row skipped or changed, naming the row by its old id; never a hash. */
  readonly notes: readonly string[];
}

/**
 * Imports exported ASP.NET Core Identity users: new integer ids with the old `Id` kept as the
 * external id, password hashes kept as they are (verified in their V2/V3 format and replaced by
 * Argon2id at the next sign-in), roles created on first use. A hash over the caps of
 * aspnet-password-hash.ts refuses the file: such a row would make every wrong guess at its
 * account expensive. A `UserName` equal to the e-mail or outside Gatehouse's user-name rule is
 * dropped; a row whose e-mail exists is skipped. The whole file is checked before anything is
 * written, and the users are written in one transaction.
 */
export async function importAspNetUsers(content: string, users: UserStore, clock: Clock): Promise<AspNetImportReport> {
  const rows = parseRows(content);
  const notes: string[] = [];
  const accepted: NewUser[] = [];
  const emails = new Set<string>();
  const userNames = new Set<string>();
  const now = clock.now();
  for (const row of rows) {
    const normalizedEmail = normalizeEmail(row.Email);
    if (emails.has(normalizedEmail) || (await users.findByNormalizedEmail(normalizedEmail)) !== null) {
      notes.push(`skipped user ${row.Id}: the e-mail ${row.Email} already has an account`);
      continue;
    }
    emails.add(normalizedEmail);
    const userName = await keptUserName(row, users, userNames, notes);
    accepted.push({
      email: row.Email,
      normalizedEmail,
      userName,
      normalizedUserName: userName === null ? null : normalizeUserName(userName),
      passwordHash: row.PasswordHash,
      emailConfirmed: row.EmailConfirmed,
      roles: row.Roles,
      createdAt: now,
      externalId: row.Id,
    });
  }
  await users.createMany(accepted);
  return { imported: accepted.length, notes };
}

async function keptUserName(row: AspNetUserRow, users: UserStore, taken: Set<string>, notes: string[]): Promise<string | null> {
  const name = row.UserName;
  if (name === null || name === '') return null;
  if (name.toLowerCase() === row.Email.toLowerCase()) {
    notes.push(`user ${row.Id}: the user name equal to the e-mail was dropped`);
    return null;
  }
  if (!USER_NAME_PATTERN.test(name)) {
    notes.push(`user ${row.Id}: the user name ${JSON.stringify(name)} does not fit [A-Za-z0-9._-]{3,64} and was dropped`);
    return null;
  }
  const normalized = normalizeUserName(name);
  if (taken.has(normalized) || (await users.findByNormalizedUserName(normalized)) !== null) {
    notes.push(`user ${row.Id}: the user name ${name} is taken and was dropped`);
    return null;
  }
  taken.add(normalized);
  return name;
}

function parseRows(content: string): AspNetUserRow[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    throw new AspNetImportError('the file is not JSON');
  }
  if (!Array.isArray(parsed)) throw new AspNetImportError('the file must hold a JSON array of AspNetUsers rows');
  return parsed.map((row, index) => checkRow(row, index + 1));
}

function checkRow(row: unknown, position: number): AspNetUserRow {
  const fail = (problem: string) => new AspNetImportError(`row ${position}: ${problem}`);
  if (typeof row !== 'object' || row === null || Array.isArray(row)) throw fail('not an object');
  const { Id, UserName, Email, EmailConfirmed, PasswordHash, Roles } = row as Record<string, unknown>;
  if ((typeof Id !== 'string' && typeof Id !== 'number') || String(Id) === '') throw fail('Id is missing');
  if (typeof Email !== 'string' || !isValidEmail(Email)) throw fail('Email is missing or not an e-mail address');
  if (UserName !== undefined && UserName !== null && typeof UserName !== 'string') throw fail('UserName must be a string or null');
  if (EmailConfirmed !== undefined && typeof EmailConfirmed !== 'boolean') throw fail('EmailConfirmed must be true or false');
  if (PasswordHash !== undefined && PasswordHash !== null) {
    if (typeof PasswordHash !== 'string') throw fail('PasswordHash must be a string or null');
    // Specific (iterations, subkey, PRF, V2 layout) so the exporter knows what to fix; never the hash itself.
    const problem = aspNetPasswordHashProblem(PasswordHash);
    if (problem !== null) throw fail(`PasswordHash ${problem}`);
  }
  if (Roles !== undefined && Roles !== null && (!Array.isArray(Roles) || !Roles.every((role) => typeof role === 'string' && role.trim() !== ''))) {
    throw fail('Roles must be an array of role names');
  }
  return {
    Id: String(Id),
    UserName: (UserName as string | null | undefined) ?? null,
    Email,
    EmailConfirmed: EmailConfirmed === true,
    PasswordHash: (PasswordHash as string | null | undefined) ?? null,
    Roles: (Roles as string[] | null | undefined) ?? [],
  };
}
