/**
 * The refusals of the use cases, by key: a problem's `detail` and the errors by field a form
 * lists, in the reader's language (the codes of the problems never change). A role's name is a
 * variable: it is the same in every language.
 */
export interface ErrorMessages {
  // Accounts: their rules, a taken e-mail or user name, an account gone meanwhile.
  readonly errorEmailNotValid: string;
  readonly errorUserNameRule: string;
  readonly errorEmailTaken: string;
  readonly errorEmailTakenField: string;
  readonly errorUserNameTaken: string;
  readonly errorUserNameTakenField: string;
  readonly errorAccountGone: string;

  // Passwords: the rules of a new one, the proof of the current one.
  readonly errorPasswordTooShort: (v: { readonly minLength: number }) => string;
  readonly errorPasswordTooLong: (v: { readonly maxLength: number }) => string;
  readonly errorPasswordCommon: string;
  readonly errorCurrentPasswordWrong: string;

  // Roles and claims of users, and the last admin.
  readonly errorRoleNameRule: string;
  readonly errorClaimTypeReserved: (v: { readonly type: string }) => string;
  readonly errorClaimTypeNotValid: (v: { readonly type: string }) => string;
  readonly errorClaimValueLength: (v: { readonly type: string; readonly maxLength: number }) => string;
  readonly errorLastAdmin: (v: { readonly role: string }) => string;

  // API keys.
  readonly errorApiKeyClientName: string;

  // A change that needs a recent sign-in.
  readonly errorRecentSignInRequired: (v: { readonly minutes: number }) => string;

  // Organizations: creating, changing and deleting them.
  readonly errorOrganizationCreateForbidden: (v: { readonly role: string }) => string;
  readonly errorOrganizationOwnerUnknown: string;
  readonly errorOrganizationChangeForbidden: (v: { readonly role: string }) => string;
  readonly errorOrganizationDeleteForbidden: (v: { readonly role: string }) => string;
  readonly errorOrganizationNameLength: (v: { readonly maxLength: number }) => string;
  readonly errorSlugRule: string;
  readonly errorSlugTaken: string;
  readonly errorSlugTakenField: string;
  readonly errorOrganizationUnknown: string;

  // Organizations: their members and their roles.
  readonly errorMemberRolesForbidden: (v: { readonly role: string }) => string;
  readonly errorOwnerRoleForbidden: (v: { readonly role: string }) => string;
  readonly errorMemberRemoveForbidden: (v: { readonly role: string }) => string;
  readonly errorOwnerRemoveForbidden: (v: { readonly role: string }) => string;
  readonly errorLastOwner: (v: { readonly role: string }) => string;
  readonly errorOrganizationOrUserUnknown: string;
  readonly errorNotAMember: string;
  readonly errorOrganizationRoleUndeclared: (v: { readonly undeclared: readonly string[]; readonly declared: readonly string[] }) => string;

  // Organizations: invitations.
  readonly errorInviteForbidden: (v: { readonly role: string }) => string;
  readonly errorInviteOwnerForbidden: (v: { readonly role: string }) => string;
  readonly errorInvitationsForbidden: (v: { readonly role: string }) => string;
  readonly errorInvitationRevokeForbidden: (v: { readonly role: string }) => string;
  readonly errorInvitationEmailMismatch: string;
  readonly errorInvitationUnknown: string;

  // The active organization of a session or a token.
  readonly errorNotYourOrganization: string;
}
