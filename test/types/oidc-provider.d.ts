// oidc-provider ships no types; the tests use it through a few calls typed where they are made.
declare module 'oidc-provider' {
  const Provider: new (issuer: string, configuration: unknown) => unknown;
  export default Provider;
}
