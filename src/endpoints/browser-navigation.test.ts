import { describe, expect, it } from 'vitest';
import { isBrowserNavigation, prefersHtml } from './browser-navigation.ts';

const CHROME_NAVIGATION = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('prefersHtml', () => {
  it("is true for a browser's navigation Accept and for text/html alone", () => {
    expect(prefersHtml(CHROME_NAVIGATION)).toBe(true);
    expect(prefersHtml('text/html')).toBe(true);
    expect(prefersHtml('application/json;q=0.5, text/html')).toBe(true);
  });

  it('is false for API clients: JSON, wildcards, JSON ranked first, HTML refused', () => {
    for (const accept of ['application/json', '*/*', '', 'application/json, text/html;q=0.9', 'text/html;q=0', 'text/*']) {
      expect(prefersHtml(accept)).toBe(false);
    }
  });

  it('is false without Accept, and reads several Accept lines as one list', () => {
    expect(prefersHtml(undefined)).toBe(false);
    expect(prefersHtml(['application/json;q=0.5', 'text/html'])).toBe(true);
    expect(prefersHtml(['application/json', 'text/html;q=0.9'])).toBe(false);
  });
});

describe('isBrowserNavigation', () => {
  it('is true for a navigation, with or without Sec-Fetch-Mode', () => {
    expect(isBrowserNavigation({ accept: CHROME_NAVIGATION })).toBe(true);
    expect(isBrowserNavigation({ accept: CHROME_NAVIGATION, 'sec-fetch-mode': 'navigate' })).toBe(true);
  });

  it('is false for XHR and fetch even when they accept HTML', () => {
    expect(isBrowserNavigation({ accept: 'text/html', 'x-requested-with': 'XMLHttpRequest' })).toBe(false);
    expect(isBrowserNavigation({ accept: 'text/html', 'sec-fetch-mode': 'cors' })).toBe(false);
    expect(isBrowserNavigation({ accept: 'text/html', 'sec-fetch-mode': 'no-cors' })).toBe(false);
    expect(isBrowserNavigation({})).toBe(false);
  });
});
