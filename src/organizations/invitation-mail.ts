import type { MailTemplate, MailVariables } from '../identity/mail-templates.ts';
import { mailParts } from '../platform/mail/mail-parts.ts';

/**
 * The built-in invitation to an organization: its one link, the organization's name and the
 * roles. The name was chosen by whoever made the organization: it arrives as plain words (nothing
 * in it reads as a link or markup), and stays out of the subject, which the dev outbox logs.
 */
export const organizationInvitationTemplate: MailTemplate<MailVariables['organizationInvitation']> = ({ productName, link, organizationName, roles }) => {
  const subject = 'You are invited to an organization';
  const before =
    `You are invited to join the organization "${organizationName}" on ${productName} with the roles ${roles.join(', ') || 'none'}. ` +
    'To accept, open this link:';
  const after =
    'The link works once, for 7 days. Sign in with this e-mail address, or create an account with it, to accept. If you did not expect this invitation, ignore this mail.';
  return { subject, ...mailParts({ productName, subject, paragraphs: [before], action: { label: 'Accept the invitation', link }, after: [after] }) };
};
