import type { MailTemplate, MailVariables } from '../identity/mail-templates.ts';
import { mailParts } from '../platform/mail/mail-parts.ts';

/**
 * The built-in invitation to an organization: its one link, the organization's name and the
 * roles. The name was chosen by whoever made the organization: it arrives as plain words (nothing
 * in it reads as a link or markup), and stays out of the subject, which the dev outbox logs.
 */
export const organizationInvitationTemplate: MailTemplate<MailVariables['organizationInvitation']> = ({ productName, link, organizationName, roles, messages: m }) => {
  const subject = m.mailInvitationSubject;
  const before = m.mailInvitationIntro({ organization: organizationName, product: productName, roles });
  return { subject, ...mailParts({ productName, subject, paragraphs: [before], action: { label: m.mailInvitationAction, link }, after: [m.mailInvitationOutro] }) };
};
