import { describe, expect, it } from 'vitest';
import { parse } from './args.ts';
import { CliError } from './cli-error.ts';

describe('CLI argument parsing', () => {
  const options = { kid: { type: 'string' }, password: { type: 'string' }, confirmed: { type: 'boolean' } } as const;

  it('takes a value that starts with one dash, as base64url kids and passwords may', () => {
    expect(parse(['--kid', '-MV04wSQv3g'], options).values.kid).toBe('-MV04wSQv3g');
    expect(parse(['--password', '-secret-', '--confirmed'], options).values).toEqual({ password: '-secret-', confirmed: true });
  });

  it('still treats a flag of the command after a string option as that flag, not a value', () => {
    expect(() => parse(['--kid', '--confirmed'], options)).toThrow(CliError);
    expect(() => parse(['--kid', '--password=x'], options)).toThrow(CliError);
  });

  it('takes a value that starts with two dashes when it names no flag of the command (a kid, one in 4,096)', () => {
    expect(parse(['--kid', '--0llsi4IzOKwLO_wXkMWf8QGW89XOtv2ihW7iUbpc8'], options).values.kid).toBe('--0llsi4IzOKwLO_wXkMWf8QGW89XOtv2ihW7iUbpc8');
    expect(parse(['--kid', '--confirmedX', '--confirmed'], options).values).toEqual({ kid: '--confirmedX', confirmed: true });
  });

  it('refuses unknown flags and stray arguments as usage errors', () => {
    expect(() => parse(['--nope', 'x'], options)).toThrow(CliError);
    expect(() => parse(['stray'], options)).toThrow(CliError);
  });
});
