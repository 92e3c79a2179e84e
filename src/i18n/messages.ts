import type { AdminMessages } from './admin-messages.ts';
import type { ErrorMessages } from './error-messages.ts';
import type { ProblemMessages } from './problem-messages.ts';

/**
 * Every text of the built-in pages and mails, by a key that stays stable: an application overrides
 * a key, or adds a language, by these names (docs/pages.md, "Languages"). A text with variables is
 * a typed function of them, so that a catalogue cannot forget one and needs no runtime parser
 * (docs/decisions/0095-message-catalogues.md).
 */
export interface AccountMessages {
  // The login page.
  readonly loginTitle: string;
  readonly loginLoginLabel: string;
  readonly loginPasswordLabel: string;
  readonly loginRememberMe: string;
  readonly loginSubmit: string;
  readonly loginNoMail: string;
  readonly loginResendLink: string;
  readonly loginOrSignInWith: string;
  readonly loginCreateAccount: string;
  readonly loginForgotPassword: string;
  readonly loginInvalidAttempt: string;
  readonly loginConfirmEmailFirst: string;

  // The registration form and its end.
  readonly registerTitle: string;
  readonly registerEmailLabel: string;
  readonly registerUserNameLabel: string;
  readonly registerUserNameHint: string;
  readonly registerPasswordLabel: string;
  readonly registerPasswordHint: (v: { readonly minLength: number }) => string;
  readonly registerSubmit: string;
  readonly registerSignInInstead: string;
  readonly registrationSentTitle: string;
  readonly registrationSentNotice: string;
  readonly registrationSentNothingArrived: string;
  readonly registrationSentResendLink: string;
  readonly registrationSentSignIn: string;

  // The profile.
  readonly profileTitle: string;
  readonly profileCurrentPassword: string;
  readonly profileNewPassword: string;
  readonly profileChangePasswordSubmit: string;
  readonly profileNotConfirmed: string;
  readonly profileNone: string;
  readonly profileEmail: string;
  readonly profileUserName: string;
  readonly profileRoles: string;
  readonly profilePhoneNumber: string;
  readonly profileAddPhone: string;
  readonly profileChangePhone: string;
  readonly profileTwoFactor: string;
  readonly profileOn: string;
  readonly profileOff: string;
  readonly profileSetUpTwoFactor: string;
  readonly profileManageTwoFactor: string;
  readonly profileExternalLogins: string;
  readonly profileLinkProvider: (v: { readonly provider: string }) => string;
  readonly profileChangePasswordHeading: string;
  readonly profileSignOut: string;
  readonly profilePasswordChangedNotice: string;
  readonly profilePasskeyAddedNotice: string;
  readonly profilePasskeyRenamedNotice: string;
  readonly profilePasskeyRemovedNotice: string;
  readonly profileSessionEndedNotice: string;
  readonly profileSessionsEndedNotice: string;

  // The shared words, the confirmation, reset and refusal pages.
  readonly signInLink: string;
  readonly formErrorSummaryHeading: string;
  readonly emailLabel: string;
  readonly emailConfirmedTitle: string;
  readonly emailConfirmedNotice: string;
  readonly emailLinkNotValidTitle: string;
  readonly emailLinkNotValidAlert: string;
  readonly emailLinkNotValidResend: string;
  readonly resendConfirmationTitle: string;
  readonly resendConfirmationSent: string;
  readonly resendConfirmationSubmit: string;
  readonly forgotPasswordTitle: string;
  readonly forgotPasswordSent: string;
  readonly forgotPasswordSubmit: string;
  readonly resetPasswordTitle: string;
  readonly resetPasswordNewPassword: string;
  readonly resetPasswordOthersLegend: string;
  readonly resetPasswordOthersHint: string;
  readonly resetPasswordRemovePasskeys: string;
  readonly resetPasswordUnlinkProviders: string;
  readonly resetPasswordSubmit: string;
  readonly passwordResetDoneTitle: string;
  readonly passwordResetDoneNotice: string;
  readonly errorForbiddenTitle: string;
  readonly errorForbiddenAlert: string;
  readonly errorYourAccount: string;
  readonly errorSignInAsSomeoneElse: string;
  readonly errorNotFoundTitle: string;
  readonly errorNotFoundAlert: string;
  readonly externalLoginRefusedTitle: string;
  readonly externalLoginRefusedBack: string;

  // Two-factor sign-in and its set-up.
  readonly twoFactorTitle: string;
  readonly twoFactorCodeLabel: string;
  readonly twoFactorWhereFrom: string;
  readonly twoFactorAuthenticatorApp: string;
  readonly twoFactorEmail: string;
  readonly twoFactorTextMessage: string;
  readonly twoFactorRememberClient: string;
  readonly twoFactorSubmit: string;
  readonly twoFactorRecoveryCodeLabel: string;
  readonly twoFactorRecoverySubmit: string;
  readonly twoFactorNoApp: string;
  readonly twoFactorSendByEmail: string;
  readonly twoFactorSendByText: string;
  readonly twoFactorLostDevice: string;
  readonly authenticatorCodeLabel: string;
  readonly authenticatorCodesHeading: string;
  readonly authenticatorCodesAdvice: string;
  readonly authenticatorNewCodesHeading: string;
  readonly authenticatorNewCodesSubmit: string;
  readonly authenticatorTurnOffHeading: string;
  readonly authenticatorTurnOffCodeLabel: string;
  readonly authenticatorTurnOffSubmit: string;
  readonly authenticatorScanBefore: string;
  readonly authenticatorScanAfter: string;
  readonly authenticatorQrAlt: string;
  readonly authenticatorTurnOnSubmit: string;
  readonly authenticatorTextNeedsPhone: string;
  readonly authenticatorYourPhone: string;
  readonly authenticatorBackToProfile: string;
  readonly authenticatorOn: (v: { readonly remaining: number }) => string;
  readonly twoFactorCodeSentNotice: string;
  readonly twoFactorCodeNotValid: string;
  readonly twoFactorLockedOut: string;
  readonly authenticatorOnNotice: string;
  readonly authenticatorOffNotice: string;
  readonly authenticatorNewCodesNotice: string;

  // The phone number.
  readonly phoneTitle: string;
  readonly phoneUnavailable: string;
  readonly phoneNone: string;
  readonly phoneYourNumberIs: string;
  readonly phoneConfirmed: string;
  readonly phoneNotConfirmedYet: string;
  readonly phoneConfirmHeading: string;
  readonly phoneCodeLabel: string;
  readonly phoneConfirmSubmit: string;
  readonly phoneAddHeading: string;
  readonly phoneAnotherHeading: string;
  readonly phoneNumberLabel: string;
  readonly phoneNumberHint: string;
  readonly phoneSendSubmit: string;
  readonly phoneRemoveHeading: string;
  readonly phoneRemoveSubmit: string;
  readonly phoneCodeSentNotice: string;
  readonly phoneConfirmedNotice: string;
  readonly phoneRemovedNotice: string;

  // The profile's sessions and passkeys, and the passkey sign-in.
  readonly sessionsHeading: string;
  readonly sessionsSignOut: string;
  readonly sessionsSignOutOthers: string;
  readonly sessionsNowhereElse: string;
  readonly sessionsThisBrowser: string;
  readonly passkeysOrUse: string;
  readonly passkeysSignIn: string;
  readonly passkeysCreated: string;
  readonly passkeysLastUsed: string;
  readonly passkeysNever: string;
  readonly passkeysBackedUp: string;
  readonly passkeysSynced: string;
  readonly passkeysDeviceOnly: string;
  readonly passkeysRename: string;
  readonly passkeysRemove: string;
  readonly passkeysNone: string;
  readonly passkeysHeading: string;
  readonly passkeysNewName: string;
  readonly passkeysNewNameHint: string;
  readonly passkeysAdd: string;
  readonly passkeysUnsupported: string;
  readonly passkeysNeedScript: string;
  readonly sessionsSignedIn: (v: { readonly when: string }) => string;
  readonly sessionsWith: (v: { readonly method: string }) => string;
  readonly sessionsLastUsed: (v: { readonly when: string }) => string;
  readonly sessionsFrom: (v: { readonly ip: string }) => string;
  readonly sessionsMethodPassword: string;
  readonly sessionsMethodPasskey: string;
  readonly sessionsMethodTwoFactor: string;
  readonly passkeysNewNameFor: (v: { readonly name: string }) => string;
  readonly passkeysRemoveNamed: (v: { readonly name: string }) => string;

  // An invitation's page.
  readonly invitationTitle: string;
  readonly invitationIntro: string;
  readonly invitationOrganization: string;
  readonly invitationAddress: string;
  readonly invitationAcceptingNav: string;
  readonly invitationAccept: string;
  readonly invitationSignInFirst: (v: { readonly email: string }) => string;
  readonly invitationSignedInAs: (v: { readonly email: string }) => string;
  readonly invitationSignInWith: (v: { readonly email: string }) => string;

  // The organizations page.
  readonly organizationsTitle: string;
  readonly organizationsNone: string;
  readonly organizationsAccountNav: string;
  readonly organizationsNoneActive: string;
  readonly organizationsActiveIn: string;
  readonly organizationsRolesApply: string;
  readonly organizationsClearActive: string;
  readonly organizationsActiveHeading: string;
  readonly organizationsActive: string;
  readonly organizationsYou: string;
  readonly organizationsRemove: string;
  readonly organizationsNoInvitations: string;
  readonly organizationsRevoke: string;
  readonly organizationsMembers: string;
  readonly organizationsPending: string;
  readonly organizationsInviteHeading: string;
  readonly organizationsInviteEmail: string;
  readonly organizationsRoles: string;
  readonly organizationsInviteSubmit: string;
  readonly organizationsNoRoles: string;
  readonly organizationsYourRoles: (v: { readonly roles: string }) => string;
  readonly organizationsSwitchTo: (v: { readonly name: string }) => string;
  readonly organizationsRemoveMember: (v: { readonly email: string }) => string;
  readonly organizationsLinkUntil: (v: { readonly when: string }) => string;
  readonly organizationsRevokeInvitation: (v: { readonly email: string }) => string;
  readonly organizationsSwitchedNotice: string;
  readonly organizationsClearedNotice: string;
  readonly organizationsInvitationSentNotice: string;
  readonly organizationsInvitationRevokedNotice: string;
  readonly organizationsMemberRemovedNotice: string;
  readonly organizationsInvitationAcceptedNotice: string;

  // The mails. `product` is the product's name, never translated.
  readonly mailConfirmAction: string;
  readonly mailConfirmEmailSubject: string;
  readonly mailConfirmEmailIntro: (v: { readonly product: string }) => string;
  readonly mailConfirmEmailOutro: string;
  readonly mailConfirmEmailAgainSubject: string;
  readonly mailConfirmEmailAgainIntro: (v: { readonly product: string }) => string;
  readonly mailConfirmEmailAgainOutro: string;
  readonly mailResetPasswordSubject: string;
  readonly mailResetPasswordIntro: (v: { readonly product: string }) => string;
  readonly mailResetPasswordAction: string;
  readonly mailResetPasswordOutro: string;
  readonly mailOtherWaysInPasskey: (v: { readonly name: string; readonly added: string }) => string;
  readonly mailOtherWaysInProvider: (v: { readonly provider: string }) => string;
  readonly mailOtherWaysInIntro: (v: { readonly lines: string }) => string;
  readonly mailOtherWaysInWarning: string;
  readonly mailRegistrationNoticeSubject: string;
  readonly mailRegistrationNoticeBody: (v: { readonly product: string }) => string;
  readonly mailRegistrationNoticeAdvice: string;
  readonly mailLockoutSubject: string;
  readonly mailLockoutBody: (v: { readonly product: string; readonly until: string }) => string;
  readonly mailLockoutAdvice: string;
  readonly mailExternalLinkedSubject: (v: { readonly provider: string }) => string;
  readonly mailExternalLinkedByEmail: (v: { readonly product: string; readonly provider: string }) => string;
  readonly mailExternalLinkedByProfile: (v: { readonly product: string; readonly provider: string }) => string;
  readonly mailExternalLinkedFromNowOn: (v: { readonly provider: string }) => string;
  readonly mailExternalLinkedAdvice: (v: { readonly provider: string }) => string;
  readonly mailExternalUnlinkedSubject: (v: { readonly provider: string }) => string;
  readonly mailExternalUnlinkedBody: (v: { readonly product: string; readonly provider: string }) => string;
  readonly mailSomeoneSignedInAdvice: string;
  readonly mailPasskeyAddedSubject: string;
  readonly mailPasskeyAddedBody: (v: { readonly product: string; readonly passkeyName: string }) => string;
  readonly mailPasskeyAddedAdvice: string;
  readonly mailPasskeyRemovedSubject: string;
  readonly mailPasskeyRemovedBody: (v: { readonly product: string; readonly passkeyName: string }) => string;
  readonly mailSignInCodeSubject: string;
  readonly mailSignInCodeBody: (v: { readonly product: string; readonly code: string }) => string;
  readonly mailSignInCodeAdvice: string;
  readonly mailInvitationSubject: string;
  readonly mailInvitationIntro: (v: { readonly organization: string; readonly product: string; readonly roles: readonly string[] }) => string;
  readonly mailInvitationAction: string;
  readonly mailInvitationOutro: string;

  // The text messages: the code their only run of six digits.
  readonly smsSignInCode: (v: { readonly product: string; readonly code: string }) => string;
  readonly smsConfirmPhone: (v: { readonly product: string; readonly code: string }) => string;
}

/**
 * Every key of the catalogues: the account pages and mails, the admin console, the problems'
 * titles and details, and the use cases' refusals. A catalogue of a language is one object of them all.
 */
export type Messages = AccountMessages & AdminMessages & ProblemMessages & ErrorMessages;

export type MessageKey = keyof Messages;
