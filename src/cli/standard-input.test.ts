import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CliError } from './cli-error.ts';
import { readFirstLine } from './standard-input.ts';

const from = (...chunks: string[]) => Readable.from(chunks.map((chunk) => Buffer.from(chunk, 'utf8')));

describe('readFirstLine', () => {
  it('reads up to the first newline and ignores the rest', async () => {
    expect(await readFirstLine(from('s3cret pass\nsecond line\n'))).toBe('s3cret pass');
  });

  it('drops the carriage return of a CRLF line, and keeps other spaces', async () => {
    expect(await readFirstLine(from('  two spaces  \r\n'))).toBe('  two spaces  ');
  });

  it('reads a last line without a newline', async () => {
    expect(await readFirstLine(from('no newline'))).toBe('no newline');
  });

  it('joins a line split across chunks, a multi-byte character included', async () => {
    const bytes = Buffer.from('pässwört\n', 'utf8');
    const chunks = Readable.from([bytes.subarray(0, 2), bytes.subarray(2, 5), bytes.subarray(5)]);
    expect(await readFirstLine(chunks)).toBe('pässwört');
  });

  it('gives an empty string for an empty first line, and null for input that ends at once', async () => {
    expect(await readFirstLine(from('\nlater'))).toBe('');
    expect(await readFirstLine(from())).toBeNull();
  });

  it('refuses a first line over 4 KiB instead of buffering it all', async () => {
    await expect(readFirstLine(from('x'.repeat(3000), 'x'.repeat(3000), '\n'))).rejects.toBeInstanceOf(CliError);
  });
});
