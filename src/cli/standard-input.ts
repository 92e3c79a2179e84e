import { CliError } from './cli-error.ts';

/** A password line longer than this is not a password: the read stops instead of buffering more. */
const MAX_LINE_BYTES = 4096;
const NEWLINE = 0x0a;

/**
 * The first line of `input` (without its `\n` or `\r\n`), for secrets given on standard input
 * rather than in the process list (`--password-stdin`). Reading stops at the first newline, so a
 * pipe that goes on is not drained. Null when the input ends before any byte.
 */
export async function readFirstLine(input: AsyncIterable<Buffer | string>): Promise<string | null> {
  const chunks: Buffer[] = [];
  let length = 0;
  let sawByte = false;
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (bytes.length > 0) sawByte = true;
    const end = bytes.indexOf(NEWLINE);
    const part = end === -1 ? bytes : bytes.subarray(0, end);
    chunks.push(part);
    length += part.length;
    if (length > MAX_LINE_BYTES) throw CliError.refused(`the first line of standard input is longer than ${MAX_LINE_BYTES} bytes`);
    if (end !== -1) break;
  }
  if (!sawByte) return null;
  const line = Buffer.concat(chunks).toString('utf8');
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
