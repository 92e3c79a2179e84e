import { Type } from '@sinclair/typebox';

/** `:id` in a path: a positive integer, checked as text so that `1.5`, `1e3` and `-1` are 400s. */
export const IdParams = Type.Object({ id: Type.String({ pattern: '^[1-9][0-9]{0,14}$' }) });

/** Titles 1–200 characters and bodies 1–10,000. */
export const Title = Type.String({ minLength: 1, maxLength: 200 });
export const Body = Type.String({ minLength: 1, maxLength: 10_000 });

/** A document as created and replaced. */
export const DocumentInput = Type.Object({ title: Title, body: Body }, { additionalProperties: false });
/** An organization as created, and its settings as replaced. */
export const OrganizationInput = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });
export const SettingsInput = Type.Object({ settings: Type.Object({}, { additionalProperties: true }) }, { additionalProperties: false });
