import type { AuditLog } from '../audit/audit-log.ts';
import { type AspNetImportReport, importAspNetUsers } from '../identity/aspnet-import.ts';
import type { NewUserInput, UserManager } from '../identity/user-manager.ts';
import type { Clock } from '../platform/clock.ts';
import type { User, UserClaim, UserStore } from '../store/ports.ts';
import { type Actor, APPLICATION } from './actor.ts';
import type { ChangeRules } from './change-rules.ts';

/** A user as the admin API and `gatehouse users list` show it. */
export interface UserSummary {
  readonly id: number;
  readonly email: string;
  readonly userName: string | null;
  readonly roles: readonly string[];
  /** Locked by an admin, or within an automatic lockout. */
  readonly lockedOut: boolean;
  readonly emailConfirmed: boolean;
}

export interface UserAdministrationOptions {
  readonly users: UserManager;
  readonly store: UserStore;
  readonly audit: AuditLog;
  readonly clock: Clock;
  readonly rules: ChangeRules;
}

/**
 * Administration of users, for the admin API, the command line and the application alike. Each
 * change is one call that makes it (with its revocation event, in the store's one transaction),
 * writes its audit event naming the actor, and announces the revocation, so that no caller can
 * change a role without the audit trail or leave an old access token valid.
 *
 * Role and claim changes refuse older access tokens (a claims change); deleting and locking end
 * every session, refresh family, token and socket of the user (a security change).
 */
export class UserAdministration {
  constructor(private readonly options: UserAdministrationOptions) {}

  /** Every user, by id. */
  async list(): Promise<UserSummary[]> {
    const { users } = this.options;
    return (await users.list()).map((user) => ({
      id: user.id,
      email: user.email,
      userName: user.userName,
      roles: user.roles,
      lockedOut: users.isLockedOut(user),
      emailConfirmed: user.emailConfirmed,
    }));
  }

  findById(id: number): Promise<User | null> {
    return this.options.users.findById(id);
  }

  /** The user with this e-mail, compared in its canonical form. */
  findByEmail(email: string): Promise<User | null> {
    return this.options.users.findByEmail(email);
  }

  /** The users of these ids that exist, by id, in a fixed number of queries whatever their number. */
  findByIds(ids: readonly number[]): Promise<User[]> {
    return this.options.store.findByIds(ids);
  }

  /** Locked by an admin, or within an automatic lockout, now. */
  isLockedOut(user: User): boolean {
    return this.options.users.isLockedOut(user);
  }

  /**
   * A new user, with the rules of registration (e-mail, user name, password, role names, claim
   * types): `GH_VALIDATION` naming each field that breaks one, `GH_CONFLICT` for a taken e-mail
   * or user name.
   */
  create(input: NewUserInput): Promise<User> {
    return this.options.users.create(input);
  }

  /** Imports users exported from ASP.NET Core Identity (`AspNetUsers` as JSON), all or none; notes for each row skipped or changed. */
  importAspNet(content: string): Promise<AspNetImportReport> {
    return importAspNetUsers(content, this.options.store, this.options.clock);
  }

  /** Deletes the user and everything that hangs on it; false when there was none. */
  async delete(userId: number, actor: Actor = APPLICATION): Promise<boolean> {
    const { users, rules } = this.options;
    const deleted = rules.keepAnAdmin ? await users.deleteKeepingAdmin(userId) : await users.delete(userId);
    if (!deleted) return false;
    await this.record('user.deleted', userId, actor);
    await rules.announceRevocation();
    return true;
  }

  /** Grants a role (`GH_VALIDATION` for a name outside the role-name rule); false when the user had it already. */
  async addRole(userId: number, role: string, actor: Actor = APPLICATION): Promise<boolean> {
    if (!(await this.options.users.addRole(userId, role))) return false;
    await this.record('role.added', userId, actor, { role });
    await this.options.rules.announceRevocation();
    return true;
  }

  /** Takes a role away (any name: one stored before the naming rule stays removable); false when the user did not have it. */
  async removeRole(userId: number, role: string, actor: Actor = APPLICATION): Promise<boolean> {
    const { users, rules } = this.options;
    const removed = rules.keepAnAdmin ? await users.removeRoleKeepingAdmin(userId, role) : await users.removeRole(userId, role);
    if (!removed) return false;
    await this.record('role.removed', userId, actor, { role });
    await rules.announceRevocation();
    return true;
  }

  /**
   * Adds a custom claim (`GH_VALIDATION` for a reserved or malformed type or value); false when
   * the user had it already. The security events name no claim changes: none is written.
   */
  async addClaim(userId: number, claim: UserClaim): Promise<boolean> {
    if (!(await this.options.users.addClaim(userId, claim))) return false;
    await this.options.rules.announceRevocation();
    return true;
  }

  /** Removes a custom claim; false when the user did not have it. */
  async removeClaim(userId: number, claim: UserClaim): Promise<boolean> {
    if (!(await this.options.users.removeClaim(userId, claim))) return false;
    await this.options.rules.announceRevocation();
    return true;
  }

  /** Locks the user out until unlocked; false for an unknown user. */
  async lock(userId: number, actor: Actor = APPLICATION): Promise<boolean> {
    const { users, rules } = this.options;
    const locked = rules.keepAnAdmin ? await users.lockKeepingAdmin(userId) : await users.lock(userId);
    if (!locked) return false;
    await this.record('user.locked', userId, actor);
    await rules.announceRevocation();
    return true;
  }

  /**
   * Lifts an admin lock and an automatic lockout alike; false for an unknown user. Nothing is
   * revoked: the user may simply sign in again.
   */
  async unlock(userId: number, actor: Actor = APPLICATION): Promise<boolean> {
    if (!(await this.options.users.unlock(userId))) return false;
    await this.record('user.unlocked', userId, actor);
    return true;
  }

  private record(type: 'user.deleted' | 'role.added' | 'role.removed' | 'user.locked' | 'user.unlocked', userId: number, actor: Actor, detail: Record<string, unknown> = {}): Promise<void> {
    return this.options.audit.record(type, { userId, ip: actor.ip ?? null, detail: { ...detail, by: actor.by } });
  }
}
