import { Type } from '@sinclair/typebox';

/** `:id` in a path: a positive integer, checked as text so that `1.5`, `1e3` and `-1` are 400s. */
export const IdParams = Type.Object({ id: Type.String({ pattern: '^[1-9][0-9]{0,14}$' }) });
