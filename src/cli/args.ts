import { parseArgs } from 'node:util';
import { GatehouseError } from '../security/errors.ts';
import { CliError } from './cli-error.ts';

/** Domain refusals (validation, conflicts) become exit code 1 with their sentence. */
export async function refusable<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof GatehouseError) throw CliError.refused(describeRefusal(error));
    throw error;
  }
}

function describeRefusal(error: GatehouseError): string {
  const errors = error.extensions.errors as Record<string, string[]> | undefined;
  const reasons = errors ? Object.values(errors).flat() : [];
  return reasons.length > 0 ? reasons.join(' ') : (error.detail ?? error.message);
}

export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw CliError.usage(`${flag} is required`);
  return value;
}

type Options = NonNullable<Parameters<typeof parseArgs>[0]>['options'];

/** Strict flag parsing: an unknown flag or a stray argument is a usage error (exit 2). */
export function parse<O extends Options>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false });
  } catch (error) {
    throw CliError.usage(error instanceof Error ? error.message : String(error));
  }
}
