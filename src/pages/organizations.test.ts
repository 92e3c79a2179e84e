import { describe, expect, it } from 'vitest';
import type { InvitationPageData } from './invitation.ts';
import type { OrganizationsPageData, OrganizationView } from './organizations.ts';
import { PageRendering } from './rendering.ts';

const TOKEN = 'af-token-value';
const EVIL = `<script>alert('x')</script> & "Co"`;
const ESCAPED = '&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;Co&quot;';

/** The built-in renderers and layout, with the default paths: the links come from them. */
const pages = new PageRendering();

function managed(id: number, name: string, active: boolean): OrganizationView {
  return {
    id,
    name,
    roles: ['OrgAdmin', 'OrgOwner'],
    active,
    management: {
      members: [
        { userId: 1, email: 'owner@example.com', userName: 'owner', roles: ['OrgAdmin', 'OrgOwner'], self: true },
        { userId: 2, email: 'ann@example.com', userName: null, roles: ['OrgMember'], self: false },
      ],
      invitations: [{ id: 5, email: 'bob@example.com', roles: ['OrgMember'], expiresAt: Date.UTC(2030, 0, 2, 3, 4) }],
      invitableRoles: ['OrgOwner', 'OrgAdmin', 'OrgMember'],
    },
  };
}

const organizations = (data: Partial<OrganizationsPageData> = {}) =>
  pages.render('organizations', { antiforgeryToken: TOKEN, organizations: [managed(1, EVIL, true), managed(2, 'Beta', false)], ...data }).toString();

const invitation = (data: Partial<InvitationPageData> = {}) =>
  pages.render('invitation', { code: 'c0de', organizationName: EVIL, email: 'bob@example.com', roles: ['OrgMember'], visitor: null, ...data }).toString();

/** Ids used more than once on a page: a label or an error would point at the wrong input. */
function repeatedIds(markup: string): string[] {
  const ids = [...markup.matchAll(/\sid="([^"]+)"/g)].map((match) => match[1]!);
  return [...new Set(ids.filter((id, index) => ids.indexOf(id) !== index))];
}

/** Every input that is not hidden has a `<label for=…>` naming it. */
function unlabelledInputs(markup: string): string[] {
  const labels = new Set([...markup.matchAll(/<label for="([^"]+)"/g)].map((match) => match[1]));
  return [...markup.matchAll(/<input ([^>]*)>/g)]
    .map((match) => match[1]!)
    .filter((attributes) => !attributes.includes('type="hidden"'))
    .map((attributes) => /id="([^"]+)"/.exec(attributes)?.[1] ?? '(no id)')
    .filter((id) => !labels.has(id));
}

/** Every form posts to a path of this origin with the antiforgery field. */
function expectSafeForms(markup: string): void {
  const forms = [...markup.matchAll(/<form ([^>]*)>([\s\S]*?)<\/form>/g)];
  expect(forms.length).toBeGreaterThan(0);
  for (const [, attributes, body] of forms) {
    expect(attributes).toMatch(/method="post" action="\/[^/\\]/);
    expect(body).toContain(`<input type="hidden" name="__RequestVerificationToken" value="${TOKEN}">`);
  }
}

describe('the organizations page', () => {
  it('writes an organization name as text everywhere it shows it', () => {
    const markup = organizations();
    expect(markup).not.toContain('<script');
    expect(markup).toContain(`<h2 id="organization-1-heading">${ESCAPED}</h2>`);
    expect(markup).toContain(`Active in this browser: <strong>${ESCAPED}</strong>`);
    expect(markup).toContain('<button type="submit">Switch to Beta</button>');
  });

  it('has no script, labels every input, repeats no id, and puts the antiforgery field in every form', () => {
    const markup = organizations({ errors: { email: ['Enter a valid e-mail address.'], roles: ['Not an organization role: X.'] }, invite: { organizationId: 2, email: 'x', roles: [] } });
    expect(markup).not.toMatch(/<script|javascript:|\son[a-z]+=/i);
    expect(unlabelledInputs(markup)).toEqual([]);
    expect(repeatedIds(markup)).toEqual([]);
    expectSafeForms(markup);
  });

  it('gives each row its own action and a button name that says which row', () => {
    const markup = organizations();
    expect(markup).toContain('action="/orgs/1/members/2/remove"');
    expect(markup).toContain('<button type="submit" aria-label="Remove ann@example.com">Remove</button>');
    expect(markup).toContain('action="/orgs/2/invitations/5/revoke"');
    expect(markup).toContain('aria-label="Revoke the invitation of bob@example.com">Revoke</button>');
    expect(markup).toContain('until 2030-01-02 03:04 UTC');
    // The switch to none, and to each organization not active.
    expect(markup).toContain('<input type="hidden" name="organizationId" value="">');
    expect(markup).toContain('<input type="hidden" name="organizationId" value="2">');
    expect(markup).not.toContain('<input type="hidden" name="organizationId" value="1">');
  });

  it('writes a refused invitation back into its own form, with the errors at its fields', () => {
    const markup = organizations({ errors: { email: ['Enter a valid e-mail address.'] }, invite: { organizationId: 2, email: 'not<an>address', roles: ['OrgAdmin'] } });
    expect(markup).toContain('role="alert"');
    expect(markup).toMatch(/<input id="organization-2-invite-email" [^>]*value="not&lt;an&gt;address"[^>]*aria-invalid="true">/);
    expect(markup).toMatch(/<input id="organization-1-invite-email" (?![^>]*aria-invalid)[^>]*>/);
    expect(markup).toContain('<input id="organization-2-role-OrgAdmin" name="roles" type="checkbox" value="OrgAdmin" checked>');
    expect(markup).toContain('<input id="organization-2-role-OrgMember" name="roles" type="checkbox" value="OrgMember">');
    // A fresh form offers the plain member role.
    expect(markup).toContain('<input id="organization-1-role-OrgMember" name="roles" type="checkbox" value="OrgMember" checked>');
  });

  it('shows neither members nor invitations of an organization the user does not manage', () => {
    const member: OrganizationView = { id: 3, name: 'Gamma', roles: ['OrgMember'], active: false, management: null };
    const markup = organizations({ organizations: [member] });
    expect(markup).not.toContain('Members');
    expect(markup).not.toContain('/orgs/3/');
    expect(markup).toContain('No organization is active');
  });

  it('says so when the user belongs to none', () => {
    expect(organizations({ organizations: [] })).toContain('id="organizations-none"');
  });
});

describe("an invitation's page", () => {
  it('shows an anonymous visitor the organization as text, with Sign in and Create an account, and no form', () => {
    const markup = invitation();
    expect(markup).not.toContain('<script');
    expect(markup).toContain(`<dd id="invitation-organization">${ESCAPED}</dd>`);
    expect(markup).toContain('href="/account/login?ReturnUrl=%2Faccount%2Finvitations%2Fc0de">Sign in</a>');
    expect(markup).toContain('href="/account/register">Create an account</a>');
    expect(markup).not.toContain('<form');
  });

  it('gives a signed-in visitor the Accept form, and after a refusal the message and a way to sign in with the invited address', () => {
    const visitor = { email: 'carol@example.com', antiforgeryToken: TOKEN };
    const accepting = invitation({ visitor });
    expectSafeForms(accepting);
    expect(accepting).toContain('action="/account/invitations/c0de/accept"');
    expect(accepting).toContain('<button type="submit">Accept</button>');
    const refused = invitation({ visitor, errors: { '': ['This invitation is for another e-mail address.'] } });
    expect(refused).toContain('<li>This invitation is for another e-mail address.</li>');
    expect(refused).toContain('>Sign in with bob@example.com</a>');
    expect(repeatedIds(refused)).toEqual([]);
  });
});
