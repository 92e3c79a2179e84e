import { buildSchema, parse } from 'graphql';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isViewerIndependent } from './viewer.ts';

const schema = buildSchema(readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8'));
const independent = (query: string) => isViewerIndependent(schema, parse(query));

describe('isViewerIndependent', () => {
  it('holds for documents that read only public fields', () => {
    expect(independent('subscription { postCreated { id title author { id userName posts { id } } } }')).toBe(true);
    expect(independent('{ posts { id } }')).toBe(true);
  });

  it('fails for a field under a policy, also through a fragment, and for the caller’s own data', () => {
    expect(independent('subscription { postCreated { author { email } } }')).toBe(false);
    expect(independent('subscription { postCreated { author { ...U } } } fragment U on User { email }')).toBe(false);
    expect(independent('{ me { id } }')).toBe(false);
  });
});
