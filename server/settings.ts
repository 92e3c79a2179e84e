/**
 * The reference service's own settings, beside Gatehouse's: the web framework it runs on, and the
 * window and time zone of its `BusinessHours` policy. Read from the environment like the rest, and refused the same way: a
 * `ConfigError` naming the variable, one line, exit 2.
 */
import { ConfigError } from 'gatehouse-auth/fastify';

/** The window of the `BusinessHours` policy: minutes after midnight, both ends allowed. */
export interface BusinessHours {
  readonly startMinute: number;
  readonly endMinute: number;
}

/** The hosts `FRAMEWORK` chooses among. */
export const FRAMEWORKS = ['fastify', 'express', 'hono', 'nestjs', 'nestjs-fastify'] as const;
export type Framework = (typeof FRAMEWORKS)[number];

export interface ServiceSettings {
  /** `FRAMEWORK`, default `fastify`. */
  readonly framework: Framework;
  /** `BUSINESS_HOURS`, default 09:00-17:00. */
  readonly businessHours: BusinessHours;
  /** IANA time zone of `BusinessHours`: `TZ`, else the system's. */
  readonly timeZone: string;
}

type Env = Readonly<Record<string, string | undefined>>;

export function loadServiceSettings(env: Env = process.env): ServiceSettings {
  return { framework: readFramework(env), businessHours: readBusinessHours(env), timeZone: readTimeZone(env) };
}

function valueOf(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function readFramework(env: Env): Framework {
  const value = valueOf(env, 'FRAMEWORK') ?? 'fastify';
  if ((FRAMEWORKS as readonly string[]).includes(value)) return value as Framework;
  throw new ConfigError('FRAMEWORK', `one of ${FRAMEWORKS.join(', ')}`, value);
}

function readBusinessHours(env: Env): BusinessHours {
  const value = valueOf(env, 'BUSINESS_HOURS') ?? '09:00-17:00';
  const match = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$/.exec(value);
  if (!match) throw new ConfigError('BUSINESS_HOURS', 'a window like 09:00-17:00', value);
  const [, h1, m1, h2, m2] = match.map(Number) as [number, number, number, number, number];
  return { startMinute: h1 * 60 + m1, endMinute: h2 * 60 + m2 };
}

function readTimeZone(env: Env): string {
  const value = valueOf(env, 'TZ');
  if (value === undefined) return Intl.DateTimeFormat().resolvedOptions().timeZone;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
  } catch {
    throw new ConfigError('TZ', 'an IANA time zone such as Europe/Paris', value);
  }
  return value;
}
