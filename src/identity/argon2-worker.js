// One Argon2id hashing thread (see argon2-workers.ts). Plain JavaScript on purpose: a worker
// thread starts without the TypeScript loader of the main thread (and under a test runner's
// module system), and this file needs nothing but Node and @node-rs/argon2.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { hashSync, verifySync } from '@node-rs/argon2';

lowerThisThreadsPriority(workerData.nice);

// Tasks that arrived while one was hashing are taken at once, and their answers held while there
// is more to do: each message wakes the event loop, so fewer messages leave it more of the core
// (decision 0027). The answers go out when the thread runs out of work, holds `repliesPerMessage`
// of them, or would keep the oldest waiting longer than `maxHoldMs` by hashing once more (the
// hash just done tells how long the next takes): the wait is bounded in time, whatever a hash
// costs on the machine (decision 0029).
//
// The tasks the thread holds are hashed in turns by client, as the pool hands them out (decision
// 0066): a sign-in handed over behind a flood's tasks is hashed after the one running, not after
// all of them. Each answer carries its task's id, so the pool does not rely on their order.
const lines = new Map();

parentPort.on('message', (first) => {
  hold(first);
  takeArrived();
  let replies = [];
  let oldestReadyAt = 0;
  for (let task = nextInTurn(); task !== undefined; ) {
    const started = performance.now();
    replies.push(run(task));
    const now = performance.now();
    if (replies.length === 1) oldestReadyAt = now;
    takeArrived();
    const next = nextInTurn();
    const oldestWaitAfterNext = now - oldestReadyAt + (now - started);
    if (next === undefined || replies.length >= workerData.repliesPerMessage || oldestWaitAfterNext > workerData.maxHoldMs) {
      parentPort.postMessage(replies);
      replies = [];
    }
    task = next;
  }
});

/** Every task already sent to this thread, into its client's line. */
function takeArrived() {
  for (let arrived = receiveMessageOnPort(parentPort); arrived !== undefined; arrived = receiveMessageOnPort(parentPort)) hold(arrived.message);
}

function hold(task) {
  const line = lines.get(task.client);
  if (line === undefined) lines.set(task.client, [task]);
  else line.push(task);
}

/** The front of the first line, whose client then goes last. */
function nextInTurn() {
  const first = lines.entries().next();
  if (first.done) return undefined;
  const [client, line] = first.value;
  const task = line.shift();
  lines.delete(client);
  if (line.length > 0) lines.set(client, line);
  return task;
}

// Each answer says how long its task took, which tells the pool how fast its queue drains.
function run({ id, operation, password, storedHash, options }) {
  const started = performance.now();
  try {
    const result = operation === 'hash' ? hashSync(password, options) : verifySync(storedHash, password);
    return { id, result, ms: performance.now() - started };
  } catch (error) {
    return { id, error: error instanceof Error ? error.message : String(error), ms: performance.now() - started };
  }
}

/**
 * Linux gives every thread its own nice value, and `setpriority` accepts a thread id where it
 * asks for a process id. Elsewhere there is no portable way to name one thread, and the process
 * id would lower the whole service, so the thread keeps the process's priority.
 */
function lowerThisThreadsPriority(nice) {
  if (process.platform !== 'linux') return;
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(threadId) && threadId > 0) setPriority(threadId, nice);
  } catch {
    // No /proc, or a sandbox that forbids it: hashing still works, at normal priority.
  }
}
