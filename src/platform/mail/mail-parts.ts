/**
 * The two parts of a mail from the same words: a text part that people and programs read, and an
 * HTML part beside it, laid out the way mail clients show reliably (one column, inline styles, no
 * stylesheet, no script, no image). The built-in templates use this, and so may an application's
 * (`kit.parts`). Words go in as plain text: this escapes them for the HTML.
 */

/** What a mail says, in order: paragraphs, at most one action (its link), more paragraphs. */
export interface MailBody {
  /** Shown as the HTML part's header. */
  readonly productName: string;
  /** The mail's subject: the HTML document's title. */
  readonly subject: string;
  /** Plain text; a line break inside one stays a line break. */
  readonly paragraphs: readonly string[];
  /** The mail's one link: its URL alone on a line in the text, a button in the HTML. */
  readonly action?: { readonly label: string; readonly link: string };
  /** Plain text after the action. */
  readonly after?: readonly string[];
}

export interface MailParts {
  readonly text: string;
  readonly html: string;
}

const GREETING = 'Hello,';

export function mailParts(body: MailBody): MailParts {
  const after = body.after ?? [];
  const text = [GREETING, ...body.paragraphs, ...(body.action ? [body.action.link] : []), ...after].join('\n\n');
  const content = [
    paragraph(GREETING),
    ...body.paragraphs.map(paragraph),
    ...(body.action ? [button(body.action.label, body.action.link)] : []),
    ...after.map(paragraph),
  ].join('');
  return { text: `${text}\n`, html: layout(body.productName, body.subject, content) };
}

// Styles are inline: many mail clients drop <style> elements. Colours are spelt with letters
// where a run of six digits could look like a code to a program reading the mail.
const BODY_STYLE = 'margin:0;padding:24px 12px;background:#f4f4f5;color:#27272a;font-family:-apple-system,BlinkMacSystemFont,Segoe UI,Roboto,Helvetica,Arial,sans-serif;font-size:16px;line-height:1.5';
const CARD_STYLE = 'max-width:560px;margin:0 auto;padding:24px;background:#fff;border:1px solid #e4e4e7;border-radius:8px';
const HEADER_STYLE = 'margin:0 0 24px;font-size:20px;font-weight:bold;color:#18181b';
const PARAGRAPH_STYLE = 'margin:0 0 16px';
const BUTTON_STYLE = 'display:inline-block;padding:10px 18px;background:#1d4ed8;color:#fff;text-decoration:none;border-radius:6px;font-weight:bold';

function layout(productName: string, subject: string, content: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(subject)}</title></head>` +
    `<body style="${BODY_STYLE}"><div style="${CARD_STYLE}">` +
    `<p style="${HEADER_STYLE}">${escapeHtml(productName)}</p>${content}</div></body></html>`
  );
}

function paragraph(text: string): string {
  return `<p style="${PARAGRAPH_STYLE}">${escapeHtml(text).replaceAll('\n', '<br>')}</p>`;
}

/** The URL appears once, as the href: the HTML holds the same single link as the text. */
function button(label: string, link: string): string {
  return `<p style="${PARAGRAPH_STYLE}"><a href="${escapeHtml(link)}" style="${BUTTON_STYLE}">${escapeHtml(label)}</a></p>`;
}

/** Text made safe for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A name someone chose (a passkey's, an organization's) as a mail shows it: letters, digits,
 * spaces and a little punctuation, each other character a space, so that nothing in it reads as
 * a link, markup, a code or a second line, whoever chose it.
 */
export function plainWords(name: string, maxLength: number): string {
  return (
    name
      .replace(/[^\p{L}\p{N} _'&()-]/gu, ' ')
      // Six digits in a row could pass for a sign-in code.
      .replace(/\d{6,}/g, (digits) => digits.replace(/(\d{3})(?=\d)/g, '$1 '))
      .trim()
      .slice(0, maxLength)
      .trim() || 'unnamed'
  );
}
