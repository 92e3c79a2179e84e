// The Argon2id verify rate of one core, the yardstick of the sign-in scenario (bench/README.md).
// Run by bench/run.ts pinned to the servers' core: the service's own PasswordHasher (same
// parameters, same library, same thread pool) verifies one password with `CONCURRENCY` checks in
// flight, as the sign-in load keeps that many requests in flight, for `VERIFY_SECONDS`; prints
// `{"verifiesPerSecond": …}` on one line.
import { PasswordHasher } from '../src/identity/password-hasher.ts';

const seconds = Number(process.env.VERIFY_SECONDS ?? 10);
const concurrency = Number(process.env.CONCURRENCY ?? 10);
const hasher = new PasswordHasher();
const password = 'bench password, verified again and again';
const stored = await hasher.hash(password);

// A short warm-up: the first verifications pay for allocating the thread pool's memory.
const warmUntil = Date.now() + 1_000;
while (Date.now() < warmUntil) await hasher.verify(stored, password);

let verified = 0;
const started = process.hrtime.bigint();
const deadline = Date.now() + seconds * 1000;
async function worker(): Promise<void> {
  while (Date.now() < deadline) {
    if (!(await hasher.verify(stored, password))) throw new Error('the benchmark password did not verify');
    verified++;
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
const elapsedSeconds = Number(process.hrtime.bigint() - started) / 1e9;
process.stdout.write(`${JSON.stringify({ verifiesPerSecond: verified / elapsedSeconds, verified, elapsedSeconds })}\n`);
