import type { ErrorMessages } from './error-messages.ts';

/** The use cases' refusals in English. */
export const enErrors: ErrorMessages = {
  // Accounts: their rules, a taken e-mail or user name, an account gone meanwhile.
  errorEmailNotValid: 'Enter a valid e-mail address.',
  errorUserNameRule: 'A user name has 3 to 64 letters, digits, dots, underscores or hyphens.',
  errorEmailTaken: 'The e-mail is already taken.',
  errorEmailTakenField: 'This e-mail is already taken.',
  errorUserNameTaken: 'The user name is already taken.',
  errorUserNameTakenField: 'This user name is already taken.',
  errorAccountGone: 'The account no longer exists.',

  // Passwords: the rules of a new one, the proof of the current one.
  errorPasswordTooShort: ({ minLength }) => `The password must have at least ${minLength} characters.`,
  errorPasswordTooLong: ({ maxLength }) => `The password must have at most ${maxLength} characters.`,
  errorPasswordCommon: 'This password is one of the most common passwords; choose another.',
  errorCurrentPasswordWrong: 'The current password is wrong.',

  // Roles and claims of users, and the last admin.
  errorRoleNameRule: 'A role name is a letter followed by up to 63 letters, digits, dots, underscores or hyphens.',
  errorClaimTypeReserved: ({ type }) => `"${type}" is a reserved claim type.`,
  errorClaimTypeNotValid: ({ type }) => `"${type}" is not a valid claim type.`,
  errorClaimValueLength: ({ type, maxLength }) => `The value of claim "${type}" must have 1 to ${maxLength} printable characters.`,
  errorLastAdmin: ({ role }) => `No other user with role ${role} can sign in: grant ${role} to another user first.`,

  // API keys.
  errorApiKeyClientName: 'A client name has 1 to 64 letters, digits, dots, underscores or hyphens.',

  // A change that needs a recent sign-in.
  errorRecentSignInRequired: ({ minutes }) =>
    `This change needs a recent sign-in (at most ${minutes} minute${minutes === 1 ? '' : 's'} ago): sign in again, then repeat the request.`,

  // Organizations: creating, changing and deleting them.
  errorOrganizationCreateForbidden: ({ role }) => `Only a user with role ${role} may create an organization.`,
  errorOrganizationOwnerUnknown: 'There is no such user to own the organization.',
  errorOrganizationChangeForbidden: ({ role }) => `Only an ${role} of the organization may change it.`,
  errorOrganizationDeleteForbidden: ({ role }) => `Only an ${role} of the organization may delete it.`,
  errorOrganizationNameLength: ({ maxLength }) => `Enter a name of 1 to ${maxLength} characters.`,
  errorSlugRule: 'A slug is 2 to 64 lower-case letters, digits or hyphens.',
  errorSlugTaken: 'The slug is already taken.',
  errorSlugTakenField: 'This slug is already taken.',
  errorOrganizationUnknown: 'There is no such organization.',

  // Organizations: their members and their roles.
  errorMemberRolesForbidden: ({ role }) => `Only an ${role} of the organization may change its members' roles.`,
  errorOwnerRoleForbidden: ({ role }) => `Only an ${role} may grant or take ${role}.`,
  errorMemberRemoveForbidden: ({ role }) => `Only an ${role} of the organization may remove its members.`,
  errorOwnerRemoveForbidden: ({ role }) => `Only an ${role} may remove an ${role}.`,
  errorLastOwner: ({ role }) => `An organization keeps at least one ${role}: make another member ${role} first.`,
  errorOrganizationOrUserUnknown: 'There is no such organization or user.',
  errorNotAMember: 'The user is not a member of this organization.',
  errorOrganizationRoleUndeclared: ({ undeclared, declared }) => `Not an organization role: ${undeclared.join(', ')}. The roles are ${declared.join(', ')}.`,

  // Organizations: invitations.
  errorInviteForbidden: ({ role }) => `Only an ${role} of the organization may invite.`,
  errorInviteOwnerForbidden: ({ role }) => `Only an ${role} may invite with ${role}.`,
  errorInvitationsForbidden: ({ role }) => `Only an ${role} of the organization may see its invitations.`,
  errorInvitationRevokeForbidden: ({ role }) => `Only an ${role} of the organization may revoke its invitations.`,
  errorInvitationEmailMismatch: 'This invitation is for another e-mail address: sign in with the invited, confirmed address.',
  errorInvitationUnknown: 'This invitation is unknown, used, revoked or expired.',

  // The active organization of a session or a token.
  errorNotYourOrganization: 'You are not a member of this organization.',
};
