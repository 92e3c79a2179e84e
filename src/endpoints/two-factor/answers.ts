/** What the two-factor endpoints' requests share: the return URL and form flags. */
import { type Static, Type } from '@sinclair/typebox';
import { localReturnUrl } from '../return-url.ts';

/** Where the browser goes once the second step is done: ASP.NET's `ReturnUrl`, or `returnUrl`. */
export const ReturnQuery = Type.Object({ ReturnUrl: Type.Optional(Type.String({ maxLength: 2048 })), returnUrl: Type.Optional(Type.String({ maxLength: 2048 })) });
export type ReturnQuery = Static<typeof ReturnQuery>;

/** The query's return URL when it is a local path, else null. */
export function returnUrlOf(query: Readonly<Record<string, unknown>> | undefined): string | null {
  return localReturnUrl(query?.ReturnUrl ?? query?.returnUrl);
}

/** A check box as JSON (`true`) or as a form (`"true"`). */
export const Flag = Type.Union([Type.Boolean(), Type.Literal('true')]);

export function isOn(flag: boolean | 'true' | undefined): boolean {
  return flag === true || flag === 'true';
}
