/**
 * The language of the reference service's pages on every host (docs/pages.md, "Languages"):
 * chosen from `Accept-Language` by the one endpoint path all hosts share, and a hostile header
 * (thousands of ranges, malformed tags, q-values out of range) is read as any other: the page
 * comes in English or German, never an error. The application's catalogue options:
 * test/http/languages.test.ts (a library application of its own, on Fastify).
 */
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const HTML = { accept: 'text/html' };

/** The page's language and heading. */
function pageOf(body: string): { lang: string | undefined; title: string | undefined } {
  return { lang: /<html lang="([^"]+)"/.exec(body)?.[1], title: /<h1>([^<]+)<\/h1>/.exec(body)?.[1] };
}

describe.each(engines)('the pages\' language on $engine', (engine) => {
  const ctx = useTestApp(engine);
  const login = (acceptLanguage: string) => ctx.app.inject({ url: '/account/login', headers: { ...HTML, 'accept-language': acceptLanguage } });

  it.each([
    ['de', 'de', 'Anmelden'],
    ['de-CH;q=0.9, en;q=0.8', 'de', 'Anmelden'],
    ['en;q=0.5, de;q=0.4', 'en', 'Sign in'],
    ['fr', 'en', 'Sign in'],
  ])('answers Accept-Language %j with %s', async (header, lang, title) => {
    const page = await login(header);
    expect(page.statusCode).toBe(200);
    expect(pageOf(page.body)).toEqual({ lang, title });
  });

  it('reads a hostile Accept-Language as any other: English or German, never an error', async () => {
    const hostile = [
      // Thousands of ranges, German last and preferred.
      `${Array.from({ length: 1500 }, (_, i) => `x${i};q=0.1`).join(',')},de;q=1`,
      // Long runs of the characters a tag and its parameters are split on.
      `${'-'.repeat(8000)};q=1`,
      `de${';q=0.9'.repeat(1300)}`,
      `${'a-'.repeat(4000)}b`,
      ` ,;=q-*`.repeat(1000),
      'de;q=2, en;q=-1, *;q=NaN',
    ];
    for (const header of hostile) {
      const page = await login(header);
      expect(page.statusCode, header.slice(0, 40)).toBe(200);
      expect(['en', 'de'], header.slice(0, 40)).toContain(pageOf(page.body).lang);
    }
    expect(pageOf((await login(hostile[0]!)).body).lang).toBe('de');
  });
});
