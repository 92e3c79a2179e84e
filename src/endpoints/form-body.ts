import type { Wording } from '../i18n/phrase.ts';
import { GatehouseError } from '../security/errors.ts';
import type { BodyReading } from './request-body.ts';

/** More fields than any of Gatehouse's forms has: a bound, not a feature (the Fastify host's too). */
export const MAX_FORM_FIELDS = 50;

/**
 * A form body as the Web-standard handler reads it, into the flat object the Fastify host's form
 * parsers make (http/plugins/form-bodies.ts): url-encoded, a repeated field as an array; or
 * multipart with text fields only, through the Fetch API's own parser. A file part is refused (no
 * endpoint takes files), and so are more than `MAX_FORM_FIELDS` fields.
 */
export async function readFormBody(contentType: string, bytes: Uint8Array): Promise<BodyReading> {
  if (/^\s*multipart\/form-data/i.test(contentType)) return readMultipart(contentType, bytes);
  const fields: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of new URLSearchParams(Buffer.from(bytes).toString('utf8'))) {
    const earlier = fields[name];
    fields[name] = earlier === undefined ? value : [earlier, value].flat();
  }
  return { value: fields };
}

async function readMultipart(contentType: string, bytes: Uint8Array): Promise<BodyReading> {
  let data: FormData;
  try {
    data = await new Response(new Uint8Array(bytes), { headers: { 'content-type': contentType } }).formData();
  } catch {
    return invalid((m) => m.problemMultipartMalformed);
  }
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  let count = 0;
  for (const [name, value] of data) {
    if (typeof value !== 'string') return invalid((m) => m.problemNoFileUploads);
    if (++count > MAX_FORM_FIELDS) return invalid((m) => m.problemTooManyFields({ max: MAX_FORM_FIELDS }));
    fields[name] = value;
  }
  return { value: fields };
}

function invalid(message: Wording): BodyReading {
  return { error: GatehouseError.validation({ body: [message] }, message) };
}
