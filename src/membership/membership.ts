import { Organizations } from '../organizations/organizations.ts';
import type { Services } from '../services.ts';
import { ApiKeyAdministration } from './api-key-administration.ts';
import { AuditTrail } from './audit-trail.ts';
import type { ChangeRules } from './change-rules.ts';
import { SessionEnding } from './session-ending.ts';
import { SigningKeyAdministration } from './signing-key-administration.ts';
import { UserAdministration } from './user-administration.ts';

/**
 * The administration use cases: what the admin API, the command line and the application call
 * to change users, API keys, signing keys and sessions, and to read the audit trail. Only these
 * make such changes, so that the audit event and the revocation go with every one of them.
 */
export interface Membership {
  readonly users: UserAdministration;
  readonly auditTrail: AuditTrail;
  readonly apiKeys: ApiKeyAdministration;
  readonly signingKeys: SigningKeyAdministration;
  readonly sessions: SessionEnding;
  /** Organizations, their members and invitations (docs/organizations.md). */
  readonly organizations: Organizations;
}

/** The use cases over the services, with the rules of one kind of caller (change-rules.ts). */
export function createMembership(
  services: Pick<
    Services,
    'users' | 'store' | 'audit' | 'clock' | 'apiKeys' | 'keyRing' | 'userSessions' | 'config' | 'mailer' | 'mails' | 'logger' | 'organizationRoles' | 'invitationAcceptance'
  >,
  rules: ChangeRules,
): Membership {
  const { audit } = services;
  const { unitOfWork } = services.store;
  return {
    users: new UserAdministration({ users: services.users, store: services.store.users, audit, clock: services.clock, rules, unitOfWork }),
    auditTrail: new AuditTrail(services.store.audit),
    apiKeys: new ApiKeyAdministration(services.apiKeys, audit, rules, unitOfWork),
    signingKeys: new SigningKeyAdministration(services.keyRing, audit, rules, services.store.keyRing),
    sessions: new SessionEnding(services.userSessions, audit, rules, unitOfWork),
    organizations: new Organizations({
      store: services.store.organizations,
      users: services.store.users,
      audit,
      clock: services.clock,
      mailer: services.mailer,
      mails: services.mails,
      logger: services.logger,
      rules,
      unitOfWork,
      roles: services.organizationRoles,
      selfService: services.config.organizationsSelfService,
      invitations: services.invitationAcceptance,
    }),
  };
}
