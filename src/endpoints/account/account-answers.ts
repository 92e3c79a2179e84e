/** Answers about a signed-in user, and the sign-in's, are never cached by the browser or a proxy. */
export const NO_STORE: Readonly<Record<string, string>> = Object.freeze({ 'cache-control': 'no-store' });
