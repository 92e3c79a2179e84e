// @ts-check
// For the container image (Dockerfile): rewrites package.json in place so that the optional peers
// the reference service loads at run time are dependencies, at the versions package-lock.json
// pins. In this repository they are devDependencies (the library's users install the ones they
// need), so `npm install --omit=dev` would leave them out of the image. Run in the image's
// dependency stage only, never in a checkout. Plain JavaScript, with nothing but Node.
import { readFileSync, writeFileSync } from 'node:fs';

/**
 * What the service may load: the framework and GraphQL, both database drivers, Redis, SMTP, OpenID
 * Connect, passkeys (the server's verification and the browser script it serves) and metrics. GraphiQL and React serve the development-only GraphiQL page and stay out.
 */
const RUNTIME_PEERS = ['fastify', 'graphql', 'better-sqlite3', 'pg', 'ioredis', 'nodemailer', 'openid-client', '@simplewebauthn/server', '@simplewebauthn/browser', 'prom-client'];

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const locked = JSON.parse(readFileSync('package-lock.json', 'utf8')).packages;
for (const name of RUNTIME_PEERS) {
  const version = locked[`node_modules/${name}`]?.version;
  if (version === undefined) throw new Error(`runtime-dependencies: ${name} is not in package-lock.json`);
  manifest.dependencies[name] = version;
  delete manifest.devDependencies?.[name];
}
writeFileSync('package.json', `${JSON.stringify(manifest, null, 2)}\n`);
process.stdout.write(`runtime-dependencies: ${RUNTIME_PEERS.join(', ')} are dependencies now\n`);
