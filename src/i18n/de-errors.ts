import type { ErrorMessages } from './error-messages.ts';

/** The use cases' refusals in German, formal ("Sie"). */
export const deErrors: ErrorMessages = {
  // Accounts: their rules, a taken e-mail or user name, an account gone meanwhile.
  errorEmailNotValid: 'Geben Sie eine gültige E-Mail-Adresse ein.',
  errorUserNameRule: 'Ein Benutzername hat 3 bis 64 Buchstaben, Ziffern, Punkte, Unterstriche oder Bindestriche.',
  errorEmailTaken: 'Die E-Mail-Adresse ist bereits vergeben.',
  errorEmailTakenField: 'Diese E-Mail-Adresse ist bereits vergeben.',
  errorUserNameTaken: 'Der Benutzername ist bereits vergeben.',
  errorUserNameTakenField: 'Dieser Benutzername ist bereits vergeben.',
  errorAccountGone: 'Das Konto gibt es nicht mehr.',

  // Passwords: the rules of a new one, the proof of the current one.
  errorPasswordTooShort: ({ minLength }) => `Das Passwort muss mindestens ${minLength} Zeichen haben.`,
  errorPasswordTooLong: ({ maxLength }) => `Das Passwort darf höchstens ${maxLength} Zeichen haben.`,
  errorPasswordCommon: 'Dieses Passwort gehört zu den häufigsten Passwörtern; wählen Sie ein anderes.',
  errorCurrentPasswordWrong: 'Das aktuelle Passwort ist falsch.',

  // Roles and claims of users, and the last admin.
  errorRoleNameRule: 'Ein Rollenname ist ein Buchstabe, gefolgt von bis zu 63 Buchstaben, Ziffern, Punkten, Unterstrichen oder Bindestrichen.',
  errorClaimTypeReserved: ({ type }) => `„${type}“ ist ein reservierter Claim-Typ.`,
  errorClaimTypeNotValid: ({ type }) => `„${type}“ ist kein gültiger Claim-Typ.`,
  errorClaimValueLength: ({ type, maxLength }) => `Der Wert des Claims „${type}“ muss 1 bis ${maxLength} druckbare Zeichen haben.`,
  errorLastAdmin: ({ role }) => `Kein anderer Benutzer mit der Rolle ${role} kann sich anmelden: Geben Sie zuerst einem anderen Benutzer die Rolle ${role}.`,

  // API keys.
  errorApiKeyClientName: 'Ein Client-Name hat 1 bis 64 Buchstaben, Ziffern, Punkte, Unterstriche oder Bindestriche.',

  // A change that needs a recent sign-in.
  errorRecentSignInRequired: ({ minutes }) =>
    `Diese Änderung verlangt eine Anmeldung vor höchstens ${minutes.toLocaleString('de-DE')} ${minutes === 1 ? 'Minute' : 'Minuten'}: Melden Sie sich erneut an und wiederholen Sie dann die Anfrage.`,

  // Organizations: creating, changing and deleting them.
  errorOrganizationCreateForbidden: ({ role }) => `Nur ein Benutzer mit der Rolle ${role} darf eine Organisation anlegen.`,
  errorOrganizationOwnerUnknown: 'Den Benutzer, dem die Organisation gehören soll, gibt es nicht.',
  errorOrganizationChangeForbidden: ({ role }) => `Nur ein ${role} der Organisation darf sie ändern.`,
  errorOrganizationDeleteForbidden: ({ role }) => `Nur ein ${role} der Organisation darf sie löschen.`,
  errorOrganizationNameLength: ({ maxLength }) => `Geben Sie einen Namen mit 1 bis ${maxLength} Zeichen ein.`,
  errorSlugRule: 'Ein Slug hat 2 bis 64 Kleinbuchstaben, Ziffern oder Bindestriche.',
  errorSlugTaken: 'Der Slug ist bereits vergeben.',
  errorSlugTakenField: 'Dieser Slug ist bereits vergeben.',
  errorOrganizationUnknown: 'Diese Organisation gibt es nicht.',

  // Organizations: their members and their roles.
  errorMemberRolesForbidden: ({ role }) => `Nur ein ${role} der Organisation darf die Rollen ihrer Mitglieder ändern.`,
  errorOwnerRoleForbidden: ({ role }) => `Nur ein ${role} darf die Rolle ${role} vergeben oder entziehen.`,
  errorMemberRemoveForbidden: ({ role }) => `Nur ein ${role} der Organisation darf ihre Mitglieder entfernen.`,
  errorOwnerRemoveForbidden: ({ role }) => `Nur ein ${role} darf einen ${role} entfernen.`,
  errorLastOwner: ({ role }) => `Eine Organisation behält mindestens einen ${role}: Machen Sie zuerst ein anderes Mitglied zum ${role}.`,
  errorOrganizationOrUserUnknown: 'Diese Organisation oder diesen Benutzer gibt es nicht.',
  errorNotAMember: 'Der Benutzer ist kein Mitglied dieser Organisation.',
  errorOrganizationRoleUndeclared: ({ undeclared, declared }) => `Keine Organisationsrolle: ${undeclared.join(', ')}. Die Rollen sind ${declared.join(', ')}.`,

  // Organizations: invitations.
  errorInviteForbidden: ({ role }) => `Nur ein ${role} der Organisation darf einladen.`,
  errorInviteOwnerForbidden: ({ role }) => `Nur ein ${role} darf mit der Rolle ${role} einladen.`,
  errorInvitationsForbidden: ({ role }) => `Nur ein ${role} der Organisation darf ihre Einladungen sehen.`,
  errorInvitationRevokeForbidden: ({ role }) => `Nur ein ${role} der Organisation darf ihre Einladungen widerrufen.`,
  errorInvitationEmailMismatch: 'Diese Einladung gilt einer anderen E-Mail-Adresse: Melden Sie sich mit der eingeladenen, bestätigten Adresse an.',
  errorInvitationUnknown: 'Diese Einladung ist unbekannt, schon verwendet, widerrufen oder abgelaufen.',

  // The active organization of a session or a token.
  errorNotYourOrganization: 'Sie sind kein Mitglied dieser Organisation.',
};
