/** docs/reference/security-events.md lists exactly the audit event types of src/audit/audit-log.ts. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('docs/reference/security-events.md', () => {
  it('lists every audit event type, and no other', () => {
    const source = read('src/audit/audit-log.ts');
    const union = source.slice(source.indexOf('export type AuditEventType'), source.indexOf(';', source.indexOf('export type AuditEventType')));
    const types = [...union.matchAll(/'([a-z.]+)'/g)].map((match) => match[1]!).sort();
    const page = read('docs/reference/security-events.md');
    const documented = [...page.matchAll(/^\| `([a-z.]+)` \|/gm)].map((match) => match[1]!).sort();
    expect(types.length).toBeGreaterThan(10);
    expect(documented).toEqual(types);
  });
});
