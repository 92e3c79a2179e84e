import { ConfigError } from 'gatehouse-auth/fastify';
import { describe, expect, it } from 'vitest';
import { loadServiceSettings } from './settings.ts';

function settingsError(env: Record<string, string>): ConfigError {
  try {
    loadServiceSettings(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('the service’s own settings', () => {
  it('runs on Fastify, with business hours 09:00-17:00 in the system time zone, by default', () => {
    expect(loadServiceSettings({})).toEqual({
      framework: 'fastify',
      businessHours: { startMinute: 9 * 60, endMinute: 17 * 60 },
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    });
  });

  it('reads business hours to the minute, including a window that spans midnight', () => {
    expect(loadServiceSettings({ BUSINESS_HOURS: '08:30-18:45' }).businessHours).toEqual({ startMinute: 510, endMinute: 1125 });
    expect(loadServiceSettings({ BUSINESS_HOURS: '22:00-06:00' }).businessHours).toEqual({ startMinute: 1320, endMinute: 360 });
  });

  it('reads FRAMEWORK', () => {
    expect(loadServiceSettings({ FRAMEWORK: 'express' }).framework).toBe('express');
  });

  it('reads TZ as the time zone of business hours', () => {
    expect(loadServiceSettings({ TZ: 'America/New_York' }).timeZone).toBe('America/New_York');
  });

  it.each([
    ['BUSINESS_HOURS', { BUSINESS_HOURS: '9-17' }],
    ['BUSINESS_HOURS', { BUSINESS_HOURS: '09:00-24:00' }],
    ['BUSINESS_HOURS', { BUSINESS_HOURS: '09:00–17:00' }],
    ['BUSINESS_HOURS', { BUSINESS_HOURS: '09:00\n17:00' }],
    ['TZ', { TZ: 'Mars/Olympus' }],
    ['FRAMEWORK', { FRAMEWORK: 'koa' }],
    ['FRAMEWORK', { FRAMEWORK: 'Express' }],
  ])('refuses a bad %s with a ConfigError naming it, on one line: %j', (variable, env) => {
    const error = settingsError(env);
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(`${variable} must be `)).toBe(true);
    expect(error.message).not.toContain('\n');
  });
});
