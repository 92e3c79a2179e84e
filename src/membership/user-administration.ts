import type { AuditLog } from '../audit/audit-log.ts';
import { type AspNetImportReport, importAspNetUsers } from '../identity/aspnet-import.ts';
import { normalizeEmail } from '../identity/normalize.ts';
import type { NewUserInput, UserManager } from '../identity/user-manager.ts';
import type { Clock } from '../platform/clock.ts';
import type { UnitOfWork, User, UserClaim, UserStore } from '../store/ports.ts';
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

/** One page of a search, and how many users match in all. */
export interface UserSearchResult {
  readonly users: readonly UserSummary[];
  readonly total: number;
}

export interface UserAdministrationOptions {
  readonly users: UserManager;
  readonly store: UserStore;
  readonly audit: AuditLog;
  readonly clock: Clock;
  readonly rules: ChangeRules;
  /** The change and its audit event commit together. */
  readonly unitOfWork: UnitOfWork;
}

/**
 * Administration of users, for the admin API, the command line and the application alike. Each
 * change is one call that makes it with its revocation event and its audit event naming the actor,
 * in one transaction, and then announces the revocation, so that no caller can change a role
 * without the audit trail or leave an old access token valid.
 *
 * Role and claim changes refuse older access tokens (a claims change); deleting and locking end
 * every session, refresh family, token and socket of the user (a security change).
 */
export class UserAdministration {
  constructor(private readonly options: UserAdministrationOptions) {}

  /** Every user, by id. */
  async list(): Promise<UserSummary[]> {
    return (await this.options.users.list()).map((user) => this.summary(user));
  }

  /**
   * A page of the users whose e-mail or user name contains `query` (any case; everyone for an
   * empty one), by id, with how many match in all: the admin console's search.
   */
  async search({ query, limit, offset }: { readonly query: string; readonly limit: number; readonly offset: number }): Promise<UserSearchResult> {
    // Compared with the canonical forms the store keeps, whatever case or width the admin typed.
    const page = await this.options.store.search({ query: normalizeEmail(query.trim()), limit, offset });
    return { users: page.users.map((user) => this.summary(user)), total: page.total };
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
  delete(userId: number, actor: Actor = APPLICATION): Promise<boolean> {
    const { users, rules } = this.options;
    return this.change('user.deleted', userId, actor, {}, () => (rules.keepAnAdmin ? users.deleteKeepingAdmin(userId) : users.delete(userId)));
  }

  /** Grants a role (`GH_VALIDATION` for a name outside the role-name rule); false when the user had it already. */
  addRole(userId: number, role: string, actor: Actor = APPLICATION): Promise<boolean> {
    return this.change('role.added', userId, actor, { role }, () => this.options.users.addRole(userId, role));
  }

  /** Takes a role away (any name: one stored before the naming rule stays removable); false when the user did not have it. */
  removeRole(userId: number, role: string, actor: Actor = APPLICATION): Promise<boolean> {
    const { users, rules } = this.options;
    return this.change('role.removed', userId, actor, { role }, () =>
      rules.keepAnAdmin ? users.removeRoleKeepingAdmin(userId, role) : users.removeRole(userId, role),
    );
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
  lock(userId: number, actor: Actor = APPLICATION): Promise<boolean> {
    const { users, rules } = this.options;
    return this.change('user.locked', userId, actor, {}, () => (rules.keepAnAdmin ? users.lockKeepingAdmin(userId) : users.lock(userId)));
  }

  /**
   * Lifts an admin lock and an automatic lockout alike; false for an unknown user. Nothing is
   * revoked: the user may simply sign in again.
   */
  unlock(userId: number, actor: Actor = APPLICATION): Promise<boolean> {
    return this.options.unitOfWork.atomically(async () => {
      if (!(await this.options.users.unlock(userId))) return false;
      await this.record('user.unlocked', userId, actor);
      return true;
    });
  }

  private summary(user: User): UserSummary {
    return {
      id: user.id,
      email: user.email,
      userName: user.userName,
      roles: user.roles,
      lockedOut: this.options.users.isLockedOut(user),
      emailConfirmed: user.emailConfirmed,
    };
  }

  /**
   * Makes the change and writes its audit event in one transaction, then announces the
   * revocation: after the commit, so that no instance reads the store before the change is in it.
   */
  private async change(type: RevokingChange, userId: number, actor: Actor, detail: Record<string, unknown>, make: () => Promise<boolean>): Promise<boolean> {
    const changed = await this.options.unitOfWork.atomically(async () => {
      if (!(await make())) return false;
      await this.record(type, userId, actor, detail);
      return true;
    });
    if (changed) await this.options.rules.announceRevocation();
    return changed;
  }

  private record(type: RevokingChange | 'user.unlocked', userId: number, actor: Actor, detail: Record<string, unknown> = {}): Promise<void> {
    return this.options.audit.record(type, { userId, ip: actor.ip ?? null, detail: { ...detail, by: actor.by } });
  }
}

/** The user changes that refuse the user's credentials. */
type RevokingChange = 'user.deleted' | 'role.added' | 'role.removed' | 'user.locked';
