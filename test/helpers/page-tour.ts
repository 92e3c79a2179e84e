/**
 * A page's look and build checked every way a test tours it (test/pages/every-page-in-chromium.test.ts):
 * loaded once, then laid out at 360 and 1280 px wide and drawn in the light and the dark scheme
 * (the viewport and the `prefers-color-scheme` emulation change on the loaded page, so a page that
 * is the answer of a form post is measured without posting again). In each of the four: the
 * document does not scroll sideways (a table may scroll inside itself), every text on the page
 * contrasts at 4.5:1 with what is behind it (computed in the page from computed styles, layers
 * composited), the stylesheet is in force (the card's width), one `h1` and it in `main`, a label
 * for every control and a name for every button, the keyboard's focus is visible; and since the
 * page was loaded the policy refused nothing and the console logged no error. A screenshot of each
 * goes to `<artifacts>/<name>-<width>-<scheme>.png`.
 *
 * The checks are soft (`expect.soft`): a page's every finding is reported, not only its first.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';

export const TOUR_WIDTHS = [360, 1280] as const;
export const TOUR_SCHEMES = ['light', 'dark'] as const;
/** WCAG 2.2 AA (1.4.3) for text of ordinary size, and (1.4.11) for a focus indicator. */
export const TEXT_CONTRAST = 4.5;
export const FOCUS_CONTRAST = 3;
/** The built-in stylesheet's cards: 28rem for the sign-in flows, 48rem for the others. */
export const CARD_WIDTHS = { narrow: '448px', wide: '768px' } as const;
export type Card = keyof typeof CARD_WIDTHS;

/** A text that contrasts too little with what is behind it. */
export interface WeakText {
  readonly text: string;
  readonly element: string;
  readonly colour: string;
  readonly background: string;
  readonly ratio: number;
}

/** An element that reaches past the right edge of the viewport. */
export interface Overhang {
  readonly element: string;
  readonly right: number;
}

/** What the page reports of itself in one width and scheme. */
export interface InPageReport {
  /** How far the document scrolls sideways (px); 0 or less: not at all. */
  readonly overflow: number;
  /** The elements past the right edge, outside any container that scrolls: the widest first. */
  readonly overhangs: readonly Overhang[];
  /** Tables wider than their box, each scrolling inside itself (`overflow-x`) or not. */
  readonly tables: readonly { readonly caption: string; readonly scrollWidth: number; readonly clientWidth: number; readonly overflowX: string }[];
  readonly mainMaxWidth: string;
  readonly sheets: number;
  readonly texts: number;
  readonly lowestContrast: number;
  readonly weakTexts: readonly WeakText[];
  readonly headings: number;
  readonly headingsInMain: number;
  readonly unlabelled: readonly string[];
  readonly unnamed: readonly string[];
}

export interface FocusReport {
  readonly element: string;
  readonly outline: string;
  readonly width: number;
  readonly shadow: string;
  readonly contrast: number;
}

/** One page in one width and scheme, as the summary keeps it. */
export interface TourEntry {
  readonly page: string;
  readonly width: number;
  readonly scheme: string;
  readonly status: number | null;
  readonly overflow: number;
  readonly lowestContrast: number;
  readonly weakTexts: readonly WeakText[];
  readonly focus: FocusReport | null;
  readonly tablesScrollingInside: number;
  readonly screenshot: string;
}

/** A browser page with what it logged: console errors and uncaught exceptions. */
export interface Visitor {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Errors since the last check; the check empties it. */
  readonly errors: string[];
}

/**
 * Every policy violation of the context's pages, from the page's own event: installed through
 * DevTools before any document, so the policy does not apply to it.
 */
export async function watchViolations(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { violations: string[] }).violations = seen;
    document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
}

/** A page of `context` whose console errors and uncaught exceptions are kept. */
export async function visitorOf(context: BrowserContext): Promise<Visitor> {
  await watchViolations(context);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    // The browser asks for /favicon.ico of its own accord; the pages link none, so a 404 there says nothing about them.
    if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) errors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  return { context, page, errors };
}

/** The page's look and build, measured in the page. Self-contained: it runs in the browser. */
function measureInPage(): InPageReport {
  type Rgba = [number, number, number, number];
  const parse = (colour: string): Rgba | null => {
    const legacy = /^rgba?\(([^)]*)\)$/.exec(colour);
    if (legacy) {
      const [red = 0, green = 0, blue = 0, alpha = 1] = legacy[1]!.split(/[\s,/]+/).filter(Boolean).map(Number.parseFloat);
      return [red, green, blue, alpha];
    }
    const srgb = /^color\(srgb ([^)]*)\)$/.exec(colour);
    if (srgb) {
      const [red = 0, green = 0, blue = 0, alpha = 1] = srgb[1]!.split(/[\s/]+/).filter(Boolean).map(Number.parseFloat);
      return [red * 255, green * 255, blue * 255, alpha];
    }
    return null;
  };
  const over = (top: Rgba, below: Rgba): Rgba => [0, 1, 2].map((index) => top[index]! * top[3] + below[index]! * (1 - top[3])).concat(1) as Rgba;
  /** What is behind `element`'s content: its background and its ancestors', composited, over the canvas. */
  const backdrop = (element: Element | null): Rgba => {
    const layers: Rgba[] = [];
    for (let at = element; at !== null; at = at.parentElement) {
      const layer = parse(getComputedStyle(at).backgroundColor);
      if (layer === null || layer[3] === 0) continue;
      layers.push(layer);
      if (layer[3] === 1) break;
    }
    const canvas: Rgba = matchMedia('(prefers-color-scheme: dark)').matches ? [18, 18, 18, 1] : [255, 255, 255, 1];
    return layers.reduceRight((below, layer) => over(layer, below), canvas);
  };
  const luminance = ([red, green, blue]: Rgba) =>
    [red, green, blue]
      .map((channel) => (channel / 255 <= 0.04045 ? channel / 255 / 12.92 : ((channel / 255 + 0.055) / 1.055) ** 2.4))
      .reduce((sum, value, index) => sum + value * [0.2126, 0.7152, 0.0722][index]!, 0);
  const contrast = (first: Rgba, second: Rgba) => {
    const [lighter, darker] = [luminance(first), luminance(second)].sort((a, b) => b - a);
    return (lighter! + 0.05) / (darker! + 0.05);
  };
  const css = (colour: Rgba) => `rgb(${colour.slice(0, 3).map((channel) => Math.round(channel)).join(', ')})`;
  const describe = (element: Element) =>
    `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}${typeof element.className === 'string' && element.className ? `.${element.className.trim().split(/\s+/).join('.')}` : ''}`;
  const shown = (element: Element) => {
    const style = getComputedStyle(element);
    return element.getClientRects().length > 0 && style.visibility === 'visible' && Number.parseFloat(style.opacity) > 0;
  };

  // Every text: an element with text of its own, and every field one can type in.
  const typed = 'input:not([type=hidden]):not([type=checkbox]):not([type=radio]), textarea, select';
  const texts = [...document.body.querySelectorAll('*')].filter(
    (element) => shown(element) && (element.matches(typed) || [...element.childNodes].some((node) => node.nodeType === Node.TEXT_NODE && (node.textContent ?? '').trim() !== '')),
  );
  const weakTexts: WeakText[] = [];
  let lowestContrast = Number.POSITIVE_INFINITY;
  for (const element of texts) {
    const behind = backdrop(element);
    const colour = parse(getComputedStyle(element).color);
    if (colour === null) continue;
    const ratio = contrast(over(colour, behind), behind);
    lowestContrast = Math.min(lowestContrast, ratio);
    if (ratio < 4.5) {
      const text = (element.matches(typed) ? (element as HTMLInputElement).value || (element as HTMLInputElement).name : (element.textContent ?? '')).trim().replace(/\s+/g, ' ').slice(0, 60);
      weakTexts.push({ text, element: describe(element), colour: css(over(colour, behind)), background: css(behind), ratio: Math.round(ratio * 100) / 100 });
    }
  }

  // Sideways: the document, and what reaches past the viewport without a scrolling container to hold it.
  const root = document.documentElement;
  const scrollsInside = (element: Element) => {
    for (let at = element.parentElement; at !== null && at !== document.body && at !== root; at = at.parentElement) {
      if (['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(at).overflowX)) return true;
    }
    return false;
  };
  const overhangs = [...document.body.querySelectorAll('*')]
    .filter((element) => shown(element) && element.getBoundingClientRect().right > root.clientWidth + 0.5 && !scrollsInside(element))
    .map((element) => ({ element: describe(element), right: Math.round(element.getBoundingClientRect().right) }))
    .sort((first, second) => second.right - first.right)
    .slice(0, 5);
  const tables = [...document.querySelectorAll('table')]
    .filter((table) => table.scrollWidth > table.clientWidth)
    .map((table) => ({ caption: (table.caption?.textContent ?? '').trim(), scrollWidth: table.scrollWidth, clientWidth: table.clientWidth, overflowX: getComputedStyle(table).overflowX }));

  const main = document.querySelector('main');
  const accessibleName = (element: Element) =>
    (
      element.getAttribute('aria-label') ??
      (element.getAttribute('aria-labelledby') ?? '')
        .split(/\s+/)
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' ')
    ).trim() ||
    (element.textContent ?? '').trim() ||
    (element as HTMLInputElement).value ||
    (element.getAttribute('title') ?? '').trim();
  const unlabelled = [...document.querySelectorAll('input:not([type=hidden]):not([type=submit]):not([type=button]):not([type=reset]), select, textarea')]
    .filter((control) => ((control as HTMLInputElement).labels?.length ?? 0) === 0 && !(control.getAttribute('aria-label') ?? '').trim() && !control.getAttribute('aria-labelledby'))
    .map((control) => control.outerHTML);
  const unnamed = [...document.querySelectorAll('button, input[type=submit], input[type=button], input[type=reset]')].filter((button) => !accessibleName(button)).map((button) => button.outerHTML);

  return {
    overflow: root.scrollWidth - root.clientWidth,
    overhangs,
    tables,
    mainMaxWidth: main === null ? '' : getComputedStyle(main).maxWidth,
    sheets: document.styleSheets.length,
    texts: texts.length,
    lowestContrast: Math.round(lowestContrast * 100) / 100,
    weakTexts,
    headings: document.querySelectorAll('h1').length,
    headingsInMain: document.querySelectorAll('main h1').length,
    unlabelled,
    unnamed,
  };
}

/** How the element that has the focus shows it, with the contrast of its outline against what is behind it. */
function focusInPage(): FocusReport | null {
  const element = document.activeElement as HTMLElement | null;
  if (element === null || element === document.body) return null;
  const style = getComputedStyle(element);
  const channels = (colour: string) => {
    const srgb = /^color\(srgb ([^)]*)\)$/.exec(colour);
    if (srgb) return srgb[1]!.split(/[\s/]+/).filter(Boolean).slice(0, 3).map((value) => Number.parseFloat(value) * 255);
    return (colour.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
  };
  const luminance = (colour: string) =>
    channels(colour)
      .map((channel) => (channel / 255 <= 0.04045 ? channel / 255 / 12.92 : ((channel / 255 + 0.055) / 1.055) ** 2.4))
      .reduce((sum, value, index) => sum + value * [0.2126, 0.7152, 0.0722][index]!, 0);
  // The outline is drawn around the element, over its parent: the first opaque background up from there.
  let behind = 'rgb(255, 255, 255)';
  for (let at = element.parentElement; at !== null; at = at.parentElement) {
    const background = getComputedStyle(at).backgroundColor;
    if (!/^rgba\(.*,\s*0\)$/.test(background) && background !== 'transparent') {
      behind = background;
      break;
    }
  }
  const [lighter, darker] = [luminance(style.outlineColor), luminance(behind)].sort((a, b) => b - a);
  return {
    element: `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}`,
    outline: style.outlineStyle,
    width: Number.parseFloat(style.outlineWidth),
    shadow: style.boxShadow,
    contrast: Math.round(((lighter! + 0.05) / (darker! + 0.05)) * 100) / 100,
  };
}

/** Tabs until a control or a link of the page has the focus; null when none takes it. */
async function keyboardFocus(page: Page): Promise<FocusReport | null> {
  for (let presses = 0; presses < 40; presses++) {
    await page.keyboard.press('Tab');
    const focusable = await page.evaluate(() => {
      const element = document.activeElement;
      return element !== null && element !== document.body && element.matches('input:not([type=hidden]), button, a[href], select, textarea');
    });
    if (focusable) return page.evaluate(focusInPage);
  }
  return null;
}

/** Until the transitions the last change started (a button's colours, with the scheme) have ended. */
function settled(page: Page): Promise<void> {
  return page.evaluate(async () => {
    await Promise.all(document.getAnimations().map((animation) => animation.finished.catch(() => undefined)));
  });
}

export interface TourOptions {
  /** The card the page must be in: narrow (the sign-in flows) or wide. */
  readonly card: Card;
  /** The document's status, when the test has its response; only told in the summary. */
  readonly status?: number | null;
  readonly artifacts: string;
}

/**
 * The page `visitor` is on, in each width and scheme: every check, a screenshot each. The
 * visitor's errors are checked and emptied. Returns what was measured, for the summary.
 */
export async function tourPage(visitor: Visitor, name: string, options: TourOptions): Promise<TourEntry[]> {
  const { page } = visitor;
  const entries: TourEntry[] = [];
  const startHeight = page.viewportSize()?.height ?? 900;
  for (const width of TOUR_WIDTHS) {
    for (const scheme of TOUR_SCHEMES) {
      const where = `${name} at ${width} px, ${scheme}`;
      await page.setViewportSize({ width, height: startHeight });
      await page.emulateMedia({ colorScheme: scheme });
      await settled(page);
      await page.evaluate(() => {
        (document.activeElement as HTMLElement | null)?.blur();
        window.scrollTo(0, 0);
      });
      const report = await page.evaluate(measureInPage);
      const screenshot = `${options.artifacts}/${name}-${width}-${scheme}.png`;
      await page.screenshot({ path: screenshot, fullPage: true });

      expect.soft(report.sheets, `${where}: stylesheets`).toBeGreaterThanOrEqual(1);
      expect.soft(report.mainMaxWidth, `${where}: the card's width`).toBe(CARD_WIDTHS[options.card]);
      expect.soft(report.overflow, `${where}: the document scrolls sideways by ${report.overflow} px (${JSON.stringify(report.overhangs)})`).toBeLessThanOrEqual(0);
      expect.soft(report.overhangs, `${where}: past the right edge`).toEqual([]);
      expect.soft(
        report.tables.filter((table) => !['auto', 'scroll'].includes(table.overflowX)),
        `${where}: a table wider than its box that does not scroll inside itself`,
      ).toEqual([]);
      expect.soft(report.texts, `${where}: texts measured`).toBeGreaterThan(0);
      expect.soft(report.weakTexts, `${where}: texts under ${TEXT_CONTRAST}:1`).toEqual([]);
      expect.soft(report.headings, `${where}: h1 elements`).toBe(1);
      expect.soft(report.headingsInMain, `${where}: h1 in main`).toBe(1);
      expect.soft(report.unlabelled, `${where}: controls without a label`).toEqual([]);
      expect.soft(report.unnamed, `${where}: buttons without a name`).toEqual([]);

      const focus = await keyboardFocus(page);
      expect.soft(focus, `${where}: nothing takes the keyboard's focus`).not.toBeNull();
      if (focus !== null) {
        expect.soft(focus.outline !== 'none' || focus.shadow !== 'none', `${where}: focus of ${focus.element} not shown`).toBe(true);
        expect.soft(focus.width, `${where}: focus outline of ${focus.element}`).toBeGreaterThanOrEqual(2);
        expect.soft(focus.contrast, `${where}: focus outline contrast of ${focus.element}`).toBeGreaterThanOrEqual(FOCUS_CONTRAST);
      }
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      entries.push({
        page: name,
        width,
        scheme,
        status: options.status ?? null,
        overflow: report.overflow,
        lowestContrast: report.lowestContrast,
        weakTexts: report.weakTexts,
        focus,
        tablesScrollingInside: report.tables.length,
        screenshot,
      });
    }
  }
  const violations = await page.evaluate(() => (window as unknown as { violations?: string[] }).violations ?? []);
  expect.soft(violations, `${name}: policy violations`).toEqual([]);
  // Chromium logs the document's own error status (a 404 page's 404) as a failed load: that is the status the test asked for, not an error of the page.
  const ownStatus = `Failed to load resource: the server responded with a status of ${options.status} `;
  const errors = visitor.errors.filter((error) => !(options.status !== undefined && options.status !== null && options.status >= 400 && error.startsWith(ownStatus) && error.endsWith(`(${page.url()})`)));
  expect.soft(errors, `${name}: console errors`).toEqual([]);
  visitor.errors.length = 0;
  return entries;
}
