import { ConfigError } from './config-error.ts';

/** Readers of one environment variable each, refusing bad values with a sentence. */
export type Env = Readonly<Record<string, string | undefined>>;

function raw(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function readString(env: Env, name: string, fallback: string): string;
export function readString(env: Env, name: string): string | undefined;
export function readString(env: Env, name: string, fallback?: string): string | undefined {
  return raw(env, name) ?? fallback;
}

export function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `an integer from ${min} to ${max}`, value);
  }
  return Number(value);
}

/** An integer from `min` to `max`, or undefined when unset (the default is worked out elsewhere). */
export function readOptionalInteger(env: Env, name: string, min: number, max: number): number | undefined {
  return raw(env, name) === undefined ? undefined : readInteger(env, name, min, min, max);
}

/** A duration in the variable's unit; decimals allowed (`ACCESS_TOKEN_MINUTES=0.5`). */
export function readDuration(env: Env, name: string, fallback: number, { allowZero = false } = {}): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  const number = /^\d+(\.\d+)?$|^\.\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(number) || number < 0 || (!allowZero && number === 0)) {
    throw new ConfigError(name, allowZero ? 'a number ≥ 0 (decimals allowed)' : 'a number > 0 (decimals allowed)', value);
  }
  return number;
}

export function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  throw new ConfigError(name, 'true or false', value);
}

/** A URL with one of `protocols`; `secret` keeps the value (it may hold a password) out of the message. */
export function readUrl(env: Env, name: string, protocols: readonly string[], { secret = false } = {}): URL | undefined {
  const value = raw(env, name);
  if (value === undefined) return undefined;
  const refuse = () => new ConfigError(name, `a URL (${protocols.map((p) => `${p}://…`).join(' or ')})`, secret ? null : value);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse();
  }
  if (!protocols.includes(url.protocol.replace(/:$/, ''))) throw refuse();
  return url;
}

export function readList(env: Env, name: string): string[] {
  const value = raw(env, name);
  if (value === undefined) return [];
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
