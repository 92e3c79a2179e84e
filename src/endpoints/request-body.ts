import secureJson from 'secure-json-parse';
import type { Wording } from '../i18n/phrase.ts';
import { GatehouseError } from '../security/errors.ts';

/** Deeper documents are refused before parsing: recursive walkers (serialisers, validators) overflow on them. */
export const MAX_JSON_DEPTH = 64;

/** A body read: its value (undefined for none), or the caller's error that refuses it (415, 400). */
export type BodyReading = { readonly value: unknown } | { readonly error: GatehouseError };

const NO_BODY: BodyReading = Object.freeze({ value: undefined });

/**
 * A body as the Web-standard handler reads it, with the JSON body parser's rules: JSON under
 * `application/json` (`parseJsonText`); an empty body is no body under any content type; any
 * other type with a body is 415.
 */
export function readJsonBody(contentType: string | null, text: string): BodyReading {
  if (contentType !== null && /^application\/json\s*(;|$)/i.test(contentType)) return parseJsonText(contentType, text);
  return text === '' ? NO_BODY : { error: new GatehouseError('GH_UNSUPPORTED_MEDIA_TYPE', (m) => m.problemContentTypeNotAccepted) };
}

/**
 * A JSON body, as every host parses it (the Fastify host's parser is http/plugins/json-body.ts):
 * UTF-8 only (another charset is 415), at most `MAX_JSON_DEPTH` levels, `__proto__` and
 * `constructor.prototype` keys refused; an empty body is no body.
 */
export function parseJsonText(contentType: string | undefined, text: string): BodyReading {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) return { error: new GatehouseError('GH_UNSUPPORTED_MEDIA_TYPE', (m) => m.problemJsonNotUtf8) };
  // An empty body is no body: endpoints whose schema needs one answer 400 for it.
  if (text.trim() === '') return NO_BODY;
  if (nestingDepth(text) > MAX_JSON_DEPTH) return invalid((m) => m.problemJsonTooDeep({ max: MAX_JSON_DEPTH }));
  try {
    return { value: secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }) };
  } catch {
    return invalid((m) => m.problemBodyNotJson);
  }
}

function invalid(message: Wording): BodyReading {
  return { error: GatehouseError.validation({ body: [message] }, message) };
}

/** The deepest nesting of arrays and objects, counting only brackets outside strings. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) i++; // backslash: skip the escaped character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (char === 0x7d || char === 0x5d) depth--;
  }
  return deepest;
}
