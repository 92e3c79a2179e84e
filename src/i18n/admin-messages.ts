/**
 * The texts of the admin console's pages (`/admin`), by key: the part of `Messages` they own. A
 * text with markup in it (a link, a `<time>`) is a function of that markup's place, so that each
 * language keeps its own word order around it.
 */
export interface AdminMessages {
  // Every console page: its navigation, and the words its tables and lists share.
  readonly adminNavLabel: string;
  readonly adminNavHome: string;
  readonly adminNavUsers: string;
  readonly adminNavAudit: string;
  readonly adminNavApiKeys: string;
  readonly adminNavSigningKeys: string;
  readonly adminNavOrganizations: string;
  readonly adminNavAccount: string;
  readonly adminNoRoleNames: string;
  readonly adminYes: string;
  readonly adminNo: string;
  readonly adminActive: string;
  readonly adminEmail: string;
  readonly adminUserName: string;
  readonly adminRoles: string;
  readonly adminEmailConfirmed: string;
  readonly adminStatus: string;
  readonly adminCreated: string;
  readonly adminAddress: string;
  readonly adminUserId: string;
  readonly adminRevoke: string;
  readonly adminRemove: string;

  // What a page says after the form that sent the browser back to it.
  readonly adminNoticeLocked: string;
  readonly adminNoticeUnlocked: string;
  readonly adminNoticeRoleAdded: string;
  readonly adminNoticeRoleRemoved: string;
  readonly adminNoticeSessionsEnded: string;
  readonly adminNoticeConfirmationSent: string;
  readonly adminNoticeUserDeleted: string;
  readonly adminNoticeKeyCreated: string;
  readonly adminNoticeClientRevoked: string;
  readonly adminNoticeKeyRotated: string;
  readonly adminNoticeKeyRevoked: string;
  readonly adminNoticeMemberRolesChanged: string;
  readonly adminNoticeMemberRemoved: string;

  // The overview.
  readonly adminHomeTitle: string;
  readonly adminHomeCountsHeading: string;
  readonly adminHomeUsers: string;
  readonly adminHomeOrganizations: string;
  readonly adminHomeApiKeyClients: string;
  readonly adminHomeSigningKeys: string;
  readonly adminHomeAuditHeading: string;
  readonly adminHomeAuditLink: string;
  /** `link` is where the link to the audit log (`adminHomeAuditLink`) goes. */
  readonly adminHomeAuditText: (v: { readonly link: string }) => string;

  // The users, searched and paged.
  readonly adminUsersTitle: string;
  readonly adminUsersSearchLabel: string;
  readonly adminUsersSearchSubmit: string;
  /** How many users match `query` (empty: every user), the count in its plural. */
  readonly adminUsersCount: (v: { readonly total: number; readonly query: string }) => string;
  readonly adminUsersCaption: (v: { readonly page: number; readonly pageCount: number }) => string;
  readonly adminUsersLocked: string;
  readonly adminUsersPagesLabel: string;
  readonly adminUsersPrevious: string;
  readonly adminUsersNext: string;
  readonly adminUsersSearchTooLong: string;
  readonly adminUsersPageInvalid: string;

  // One user's page, and the step before deleting one.
  readonly adminUserAccountHeading: string;
  readonly adminUserNoUserName: string;
  readonly adminUserTwoFactor: string;
  readonly adminUserTwoFactorOn: string;
  readonly adminUserTwoFactorOff: string;
  readonly adminUserLockedByAdmin: string;
  /** `until` is where the end of the lockout goes. */
  readonly adminUserLockedOutUntil: (v: { readonly until: string }) => string;
  readonly adminUserLock: string;
  readonly adminUserLockName: string;
  readonly adminUserUnlock: string;
  readonly adminUserUnlockName: string;
  readonly adminUserResend: string;
  readonly adminUserConfirmedAlready: string;
  readonly adminUserNoRoles: string;
  readonly adminUserRemoveRole: (v: { readonly role: string }) => string;
  readonly adminUserRoleLabel: string;
  readonly adminUserRoleHint: string;
  readonly adminUserAddRole: string;
  readonly adminUserSessionsHeading: string;
  readonly adminUserSignedInNowhere: string;
  readonly adminUserSessionsCaption: (v: { readonly email: string }) => string;
  readonly adminUserSessionKind: string;
  readonly adminUserSessionBrowser: string;
  readonly adminUserSessionApp: string;
  readonly adminUserSessionSignedIn: string;
  readonly adminUserSessionLastUsed: string;
  readonly adminUserSessionClient: string;
  readonly adminUserEndSessions: string;
  readonly adminUserDeleteHeading: string;
  readonly adminUserDeleteText: string;
  readonly adminUserDeleteLink: string;
  readonly adminUserDeleteTitle: (v: { readonly email: string }) => string;
  readonly adminUserDeleteWarning: string;
  readonly adminUserDeleteSubmit: string;
  readonly adminUserKeep: string;

  // The audit log, its filters and their refusals.
  readonly adminAuditTitle: string;
  readonly adminAuditNone: string;
  readonly adminAuditFilterLabel: string;
  readonly adminAuditType: string;
  readonly adminAuditTypeHint: string;
  readonly adminAuditFrom: string;
  readonly adminAuditFromHint: string;
  readonly adminAuditUntil: string;
  readonly adminAuditUntilHint: string;
  readonly adminAuditFilter: string;
  readonly adminAuditClear: string;
  readonly adminAuditCaption: string;
  readonly adminAuditTime: string;
  readonly adminAuditTypeColumn: string;
  readonly adminAuditUser: string;
  readonly adminAuditDetail: string;
  readonly adminAuditOnlyType: (v: { readonly type: string }) => string;
  readonly adminAuditOnlyUser: (v: { readonly userId: number }) => string;
  readonly adminAuditUserEvents: string;
  readonly adminAuditPagesLabel: string;
  readonly adminAuditNewest: string;
  readonly adminAuditOlder: string;
  readonly adminAuditTypeTooLong: string;
  readonly adminAuditUserIdInvalid: string;
  readonly adminAuditTimeInvalid: string;
  readonly adminAuditUntilBeforeFrom: string;

  // The API keys.
  readonly adminApiKeysTitle: string;
  readonly adminApiKeysNewHeading: string;
  readonly adminApiKeysNewText: string;
  readonly adminApiKeysClientLabel: string;
  readonly adminApiKeysClientHint: string;
  readonly adminApiKeysCreate: string;
  readonly adminApiKeysCreatedHeading: (v: { readonly client: string }) => string;
  readonly adminApiKeysCopyNow: string;
  readonly adminApiKeysClientsHeading: string;
  readonly adminApiKeysNoClient: string;
  readonly adminApiKeysCaption: string;
  readonly adminApiKeysClient: string;
  readonly adminApiKeysActiveKeys: string;
  readonly adminApiKeysFirstKey: string;
  readonly adminApiKeysRevoked: string;
  readonly adminApiKeysRevokeClient: (v: { readonly client: string }) => string;
  readonly adminApiKeysNoActiveKey: string;

  // The signing keys.
  readonly adminSigningKeysTitle: string;
  readonly adminSigningKeysRotateHeading: string;
  readonly adminSigningKeysRotateText: string;
  readonly adminSigningKeysRotate: string;
  readonly adminSigningKeysHeading: string;
  readonly adminSigningKeysRevokeText: string;
  readonly adminSigningKeysCaption: string;
  readonly adminSigningKeysKid: string;
  readonly adminSigningKeysState: string;
  readonly adminSigningKeysRevokeKey: (v: { readonly kid: string }) => string;
  readonly adminSigningKeysCurrent: string;
  readonly adminSigningKeysVerifies: string;
  readonly adminSigningKeysRetired: string;
  readonly adminSigningKeysNoActiveKey: string;

  // The organizations, and one organization's members.
  readonly adminOrganizationsTitle: string;
  readonly adminOrganizationsNone: string;
  readonly adminOrganizationsCaption: string;
  readonly adminOrganizationsName: string;
  readonly adminOrganizationsSlug: string;
  readonly adminOrganizationsMembers: string;
  readonly adminOrganizationMembersCaption: (v: { readonly organization: string }) => string;
  readonly adminOrganizationJoined: string;
  readonly adminOrganizationEvery: string;
  readonly adminOrganizationRolesOf: (v: { readonly email: string }) => string;
  readonly adminOrganizationChangeRoles: string;
  readonly adminOrganizationChangeRolesOf: (v: { readonly email: string }) => string;
  readonly adminOrganizationRemoveMember: (v: { readonly email: string }) => string;
}
