/**
 * Store records are plain objects, so a resource handler recognises its resource by the members it
 * reads: `member` must be an id, a positive integer or its decimal string (docs/reference/http.md).
 */
export function hasId(resource: unknown, member: string): boolean {
  if (typeof resource !== 'object' || resource === null) return false;
  const id = (resource as Record<string, unknown>)[member];
  return (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) || (typeof id === 'string' && /^[1-9]\d{0,15}$/.test(id));
}
