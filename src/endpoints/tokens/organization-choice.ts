import { Type } from '@sinclair/typebox';

/**
 * `organizationId` of `POST /auth/token` and `POST /auth/refresh`: the organization the access
 * token is issued for (null: none), remembered as the user's choice (docs/organizations.md).
 */
export const OrganizationChoice = Type.Union([Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()]);
