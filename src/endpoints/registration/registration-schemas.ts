/**
 * The bodies and queries of registration, confirmation and password reset, and how their limits
 * read the address a body names.
 */
import { type Static, Type } from '@sinclair/typebox';

/** Long enough for any real password (128 code points of 4 bytes), short enough to refuse before hashing. */
const PASSWORD_FIELD_MAX = 1024;
const EMAIL_FIELD_MAX = 254;

const Flag = Type.Union([Type.Boolean(), Type.Literal('true')]);

/** A new account: its address, its password and, if the user wants one, a user name. */
export const RegisterRequest = Type.Object(
  {
    email: Type.String({ maxLength: EMAIL_FIELD_MAX }),
    password: Type.String({ maxLength: PASSWORD_FIELD_MAX }),
    userName: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type RegisterRequest = Static<typeof RegisterRequest>;

/** The confirmation mail's link: the account and its code (either may be missing or wrong: the page says so). */
export const ConfirmQuery = Type.Object({ userId: Type.Optional(Type.String({ maxLength: 20 })), code: Type.Optional(Type.String({ maxLength: 100 })) });
export type ConfirmQuery = Static<typeof ConfirmQuery>;

/** A body naming only an address: a forgotten password, a confirmation mail sent again. */
export const EmailRequest = Type.Object({ email: Type.String({ maxLength: EMAIL_FIELD_MAX }) }, { additionalProperties: false });
export type EmailRequest = Static<typeof EmailRequest>;

/** A reset: the address, the mailed code, the new password, and what else to remove with it. */
export const ResetRequest = Type.Object(
  {
    email: Type.String({ maxLength: EMAIL_FIELD_MAX }),
    code: Type.String({ maxLength: 100 }),
    newPassword: Type.String({ maxLength: PASSWORD_FIELD_MAX }),
    /** Remove every passkey of the account with the reset (a form's checkbox sends `true`). */
    removePasskeys: Type.Optional(Flag),
    /** Unlink every external login of the account with the reset. */
    removeExternalLogins: Type.Optional(Flag),
  },
  { additionalProperties: false },
);
export type ResetRequest = Static<typeof ResetRequest>;

/** The reset page: the mailed link's address and code, or the status after a post. */
export const ResetQuery = Type.Object({
  email: Type.Optional(Type.String({ maxLength: EMAIL_FIELD_MAX })),
  code: Type.Optional(Type.String({ maxLength: 100 })),
  status: Type.Optional(Type.String({ maxLength: 10 })),
});
export type ResetQuery = Static<typeof ResetQuery>;

/** A page shown after its form's post (`?status=sent`). */
export const StatusQuery = Type.Object({ status: Type.Optional(Type.String({ maxLength: 10 })) });
export type StatusQuery = Static<typeof StatusQuery>;

/** The page that sends a confirmation again: the address to fill in, or the status after a post. */
export const ResendQuery = Type.Object({ status: Type.Optional(Type.String({ maxLength: 10 })), email: Type.Optional(Type.String({ maxLength: EMAIL_FIELD_MAX })) });
export type ResendQuery = Static<typeof ResendQuery>;

/**
 * Counted per IP, and per the e-mail they name and IP (docs/reference/configuration.md): the
 * address a body names, when it is a string.
 */
export const perAddress = { account: emailOf };

/** The e-mail a body names, when it is a string (the body may have failed validation). */
export function emailOf(body: unknown): string | undefined {
  const email = (body as { email?: unknown } | undefined)?.email;
  return typeof email === 'string' && email !== '' ? email : undefined;
}
