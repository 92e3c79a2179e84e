import { GatehouseError } from '../security/errors.ts';

/** A path that is not valid percent-encoding is the caller's error (400) on every host, not a 404. */
export const INVALID_URL = GatehouseError.validation({ url: [(m) => m.problemUrlBadEscape] }, (m) => m.problemUrlNotValid);

/** Whether every `%` of `path` starts an escape that decodes. */
export function validPercentEncoding(path: string): boolean {
  if (!path.includes('%')) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}
