/**
 * Node keeps only the first of repeated Authorization headers. A proxy in front may have judged
 * another one, so every host hands a repeated header to the schemes as an array, which the Bearer
 * scheme refuses as malformed.
 */

/** Every Authorization value of the raw headers when there are two or more; undefined otherwise. */
export function repeatedAuthorization(rawHeaders: readonly string[]): string[] | undefined {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (isAuthorization(rawHeaders[i]!)) count++;
  if (count < 2) return undefined;
  return rawHeaders.filter((_, i) => i % 2 === 1 && isAuthorization(rawHeaders[i - 1]!));
}

/** A raw header name, any case; the usual spellings are matched without lower-casing a copy. */
function isAuthorization(name: string): boolean {
  return name === 'authorization' || name === 'Authorization' || (name.length === 13 && name.toLowerCase() === 'authorization');
}
