import { RESERVED_CLAIM_TYPES } from '../security/claims/index.ts';
import type { Phrase, Wording } from '../i18n/phrase.ts';
import { GatehouseError } from '../security/errors.ts';
import type { Clock } from '../platform/clock.ts';
import { type AdminKeepingChange, StoreConflictError, type User, type UserClaim, type UserStore } from '../store/ports.ts';
import { AUTH_TIME_CLAIM, FAMILY_CLAIM, STAMP_CLAIM } from '../tokens/access-token.ts';
import { ADMIN_ROLE } from './admin-role.ts';
import type { CredentialChecks } from './credential-checks.ts';
import { type FailureContext, isLockedOutAt } from './lockout.ts';
import { isValidEmail, normalizeEmail, normalizeUserName, USER_NAME_PATTERN } from './normalize.ts';
import type { PasswordHasher } from './password-hasher.ts';
import { passwordProblems } from './password-policy.ts';
import { checkRoleName, isValidRoleName } from './role-name.ts';

export interface NewUserInput {
  readonly email: string;
  readonly password: string;
  readonly userName?: string | null;
  readonly roles?: readonly string[];
  readonly claims?: readonly UserClaim[];
  readonly emailConfirmed?: boolean;
}

/** Claim types: a token-friendly name. */
const CLAIM_TYPE_PATTERN = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;
const CLAIM_VALUE_MAX = 512;

/** Membership operations on users: creation with its rules, roles, claims, locks. */
export class UserManager {
  constructor(
    private readonly users: UserStore,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
    private readonly passwordMinLength: number,
    /** The current password of a change is checked on the account's failure counter. */
    private readonly checks: CredentialChecks,
  ) {}

  /** `clientKey`: whose request it is, for the hashing queue's turns (`SignInContext.clientKey`); `language`: the registration's, the user's mails' until a sign-in states another. */
  async create(input: NewUserInput, { clientKey, language }: { readonly clientKey?: string; readonly language?: string } = {}): Promise<User> {
    this.validateNewUser(input);
    const userName = input.userName ?? null;
    try {
      return await this.users.create({
        email: input.email,
        normalizedEmail: normalizeEmail(input.email),
        userName,
        normalizedUserName: userName === null ? null : normalizeUserName(userName),
        passwordHash: await this.hasher.hash(input.password, clientKey),
        emailConfirmed: input.emailConfirmed ?? false,
        language: language ?? null,
        roles: [...new Set(input.roles ?? [])],
        claims: dedupe(input.claims ?? []),
        createdAt: this.clock.now(),
      });
    } catch (error) {
      if (error instanceof StoreConflictError) {
        const userName = error.field === 'userName';
        throw new GatehouseError('GH_CONFLICT', (m) => (userName ? m.errorUserNameTaken : m.errorEmailTaken), {
          errors: { [error.field]: [(m) => (userName ? m.errorUserNameTakenField : m.errorEmailTakenField)] },
        });
      }
      throw error;
    }
  }

  /** The rules of a new user (e-mail, user name, password, roles, claims): a 400 naming each field that breaks one. */
  validateNewUser(input: Pick<NewUserInput, 'email' | 'password' | 'userName' | 'roles' | 'claims'>): void {
    const errors: Record<string, Wording[]> = {};
    if (!isValidEmail(input.email)) errors.email = [(m) => m.errorEmailNotValid];
    const userName = input.userName ?? null;
    if (userName !== null && !USER_NAME_PATTERN.test(userName)) {
      errors.userName = [(m) => m.errorUserNameRule];
    }
    const password = passwordProblems(input.password, this.passwordMinLength);
    if (password.length > 0) errors.password = password;
    if (!(input.roles ?? []).every(isValidRoleName)) errors.role = [(m) => m.errorRoleNameRule];
    for (const claim of input.claims ?? []) {
      const problem = claimProblem(claim);
      if (problem) (errors.claim ??= []).push(problem);
    }
    if (Object.keys(errors).length > 0) throw GatehouseError.validation(errors);
  }

  /** The password rules alone (a reset or a change): a 400 naming `field` when it breaks one. */
  validatePassword(password: string, field = 'password'): void {
    const problems = passwordProblems(password, this.passwordMinLength);
    if (problems.length > 0) throw GatehouseError.validation({ [field]: problems });
  }

  /**
   * A new password chosen by its owner, who proves the current one: 400 for a wrong current
   * password (counted toward lockout; `AccountLockedError` while locked) or a refused new one.
   * A security change: every session and token of the user ends.
   */
  async changePassword(user: User, currentPassword: string, newPassword: string, context: FailureContext = {}): Promise<void> {
    await this.storePasswordHash(user.id, await this.provePasswordChange(user, currentPassword, newPassword, context));
  }

  /**
   * The first half of `changePassword`: proves the current password and checks and hashes the
   * new one, writing nothing but a failure's count; the new hash. Apart so that the slow hashing
   * and the failure count stay outside the transaction that stores the hash with its audit event.
   */
  async provePasswordChange(user: User, currentPassword: string, newPassword: string, context: FailureContext = {}): Promise<string> {
    const proven = await this.checks.verify(user, 'change-password', 'password', () => this.hasher.verify(user.passwordHash, currentPassword), context);
    if (!proven) {
      throw GatehouseError.validation({ currentPassword: [(m) => m.errorCurrentPasswordWrong] }, (m) => m.errorCurrentPasswordWrong);
    }
    this.validatePassword(newPassword, 'newPassword');
    return this.hasher.hash(newPassword);
  }

  /** The second half of `changePassword`: stores the hash (with its revocation event); 404 when the account is gone. */
  async storePasswordHash(userId: number, passwordHash: string): Promise<void> {
    if (!(await this.users.setPassword(userId, passwordHash))) {
      throw GatehouseError.notFound((m) => m.errorAccountGone);
    }
  }

  findByEmail(email: string): Promise<User | null> {
    return this.users.findByNormalizedEmail(normalizeEmail(email));
  }

  /** Whether any account holds this user name (compared in its canonical form). */
  async isUserNameTaken(userName: string): Promise<boolean> {
    return (await this.users.findByNormalizedUserName(normalizeUserName(userName))) !== null;
  }

  /** Sign-in accepts the e-mail or the user name. */
  async findByLogin(login: string): Promise<User | null> {
    if (login.includes('@')) return this.findByEmail(login);
    return USER_NAME_PATTERN.test(login) ? this.users.findByNormalizedUserName(normalizeUserName(login)) : null;
  }

  findById(id: number): Promise<User | null> {
    return this.users.findById(id);
  }

  list(): Promise<User[]> {
    return this.users.list();
  }

  addRole(userId: number, role: string): Promise<boolean> {
    checkRoleName(role);
    return this.users.addRole(userId, role);
  }

  /** Any name goes: a role stored before the naming rule must stay removable. */
  removeRole(userId: number, role: string): Promise<boolean> {
    return this.users.removeRole(userId, role);
  }

  addClaim(userId: number, claim: UserClaim): Promise<boolean> {
    const problem = claimProblem(claim);
    if (problem) throw GatehouseError.validation({ claim: [problem] });
    return this.users.addClaim(userId, claim);
  }

  removeClaim(userId: number, claim: UserClaim): Promise<boolean> {
    return this.users.removeClaim(userId, claim);
  }

  delete(userId: number): Promise<boolean> {
    return this.users.delete(userId);
  }

  /**
   * The admin API's deletion, lock and removal of a role: 409 (`GH_CONFLICT`), nothing changed,
   * when the user is the last holder of `Admin` not locked by an admin. False for an unknown
   * user (or, removing a role, one without it). The CLI uses `delete` and `removeRole`, which
   * keep nobody: it is the way back into a service without an admin.
   */
  async deleteKeepingAdmin(userId: number): Promise<boolean> {
    return keptAdmin(await this.users.deleteKeepingAdmin(userId, ADMIN_ROLE));
  }

  async lockKeepingAdmin(userId: number): Promise<boolean> {
    return keptAdmin(await this.users.lockKeepingAdmin(userId, ADMIN_ROLE));
  }

  async removeRoleKeepingAdmin(userId: number, role: string): Promise<boolean> {
    return keptAdmin(await this.users.removeRoleKeepingAdmin(userId, role, ADMIN_ROLE));
  }

  /** Lifts an admin lock and an automatic lockout alike. */
  async unlock(userId: number): Promise<boolean> {
    const found = await this.users.setAdminLock(userId, false);
    return found && (await this.users.clearLockout(userId));
  }

  lock(userId: number): Promise<boolean> {
    return this.users.setAdminLock(userId, true);
  }

  /** Locked by an admin, or within an automatic lockout. */
  isLockedOut(user: User): boolean {
    return isLockedOutAt(user, this.clock.now());
  }
}

/** Whether the change was made; the 409 when it would have left no usable admin. */
function keptAdmin(change: AdminKeepingChange): boolean {
  if (change === 'last-admin') {
    throw new GatehouseError('GH_CONFLICT', (m) => m.errorLastAdmin({ role: ADMIN_ROLE }));
  }
  return change === 'done';
}

/** Why a custom claim is refused, as a phrase of the catalogues, or null. Reserved types belong to the service. */
export function claimProblem(claim: UserClaim): Phrase | null {
  const { type } = claim;
  if (RESERVED_CLAIM_TYPES.has(type) || type === STAMP_CLAIM || type === FAMILY_CLAIM || type === AUTH_TIME_CLAIM) return (m) => m.errorClaimTypeReserved({ type });
  if (!CLAIM_TYPE_PATTERN.test(type)) return (m) => m.errorClaimTypeNotValid({ type });
  if (claim.value.length === 0 || claim.value.length > CLAIM_VALUE_MAX || /\p{Cc}/u.test(claim.value)) {
    return (m) => m.errorClaimValueLength({ type, maxLength: CLAIM_VALUE_MAX });
  }
  return null;
}

function dedupe(claims: readonly UserClaim[]): UserClaim[] {
  const seen = new Set<string>();
  return claims.filter((claim) => {
    const key = `${claim.type}\u0000${claim.value}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
