import type { MailMessage } from '../platform/mail/mailer.ts';

/**
 * The invitation to an organization: its one link, the organization's name and the roles. The
 * name was chosen by whoever made the organization, so it is shown only as plain words (nothing
 * in it may read as a link or markup), and never in the subject, which the dev outbox logs.
 */
export function invitationMail({ email, organizationName, roles, link }: { email: string; organizationName: string; roles: readonly string[]; link: string }): MailMessage {
  const name = plainName(organizationName);
  const before = `You are invited to join the organization "${name}" with the roles ${roles.join(', ') || 'none'}. To accept, open this link:`;
  const after =
    'The link works once, for 7 days. Sign in with this e-mail address, or create an account with it, to accept. If you did not expect this invitation, ignore this mail.';
  return {
    to: email,
    subject: 'You are invited to an organization',
    text: `Hello,\n\n${before}\n\n${link}\n\n${after}\n`,
    html: `<!doctype html><html><body><p>Hello,</p><p>${escapeHtml(before)}</p><p><a href="${escapeHtml(link)}">Accept the invitation</a></p><p>${escapeHtml(after)}</p></body></html>`,
  };
}

/** Letters, digits, spaces and a little punctuation: no URL, no markup survives. */
function plainName(name: string): string {
  return name.replace(/[^\p{L}\p{N} _'&()-]/gu, ' ').replace(/\s+/g, ' ').trim().slice(0, 100) || 'unnamed';
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}
