import { describe, expect, it } from 'vitest';
import { parse } from './args.ts';
import { CliError } from './cli-error.ts';

describe('CLI argument parsing', () => {
  const options = { kid: { type: 'string' }, password: { type: 'string' }, confirmed: { type: 'boolean' } } as const;

  it('takes a value that starts with one dash, as base64url kids and passwords may', () => {
    expect(parse(['--kid', '-MV04wSQv3g'], options).values.kid).toBe('-MV04wSQv3g');
    expect(parse(['--password', '-secret-', '--confirmed'], options).values).toEqual({ password: '-secret-', confirmed: true });
  });

  it('still treats a value that starts with two dashes as the next flag', () => {
    expect(() => parse(['--kid', '--confirmed'], options)).toThrow(CliError);
  });

  it('refuses unknown flags and stray arguments as usage errors', () => {
    expect(() => parse(['--nope', 'x'], options)).toThrow(CliError);
    expect(() => parse(['stray'], options)).toThrow(CliError);
  });
});
