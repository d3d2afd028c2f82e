/**
 * The verification worker (a worker thread of gateway/auth/verifier.ts): checks batches of
 * Ed25519 signatures off the event loop. Each message is one task; each task is answered, in
 * order: the answers to the tasks of one turn of the worker's event loop leave together, as one
 * message (tasks queued while the worker was busy are answered at once, not one wake-up each).
 *
 * Plain JavaScript on purpose: a worker thread does not inherit the TypeScript loader under
 * every runner (vitest's workers do not), and this file needs nothing but libsodium.
 *
 * Task: { keys: string[] (64 hex), signatures: string[] (128 hex), candidates: string[][] }, one
 * entry per job; reply: an Int16Array with, per job of the tasks it answers (in order), the
 * index of the first candidate message the signature covers, or -1. Inputs were shape-checked by the gateway; anything that still
 * fails to decode answers -1.
 */
import { createPublicKey, verify } from 'node:crypto';
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

const sodium = (() => {
  try {
    return createRequire(import.meta.url)('sodium-native');
  } catch {
    return undefined;
  }
})();

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const KEY_CACHE = 10_000;
const keys = new Map();

function publicKey(hex) {
  let key = keys.get(hex);
  if (key !== undefined) return key;
  const raw = Buffer.from(hex, 'hex');
  key = sodium !== undefined ? raw : createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, raw]), format: 'der', type: 'spki' });
  if (keys.size >= KEY_CACHE) keys.clear();
  keys.set(hex, key);
  return key;
}

function check(keyHex, signatureHex, message) {
  try {
    const key = publicKey(keyHex.toLowerCase());
    const signature = Buffer.from(signatureHex, 'hex');
    const bytes = Buffer.from(message, 'utf8');
    return sodium !== undefined ? sodium.crypto_sign_verify_detached(signature, bytes, key) : verify(null, bytes, key, signature);
  } catch {
    return false;
  }
}

export default function verifyBatch({ keys: keyList, signatures, candidates }) {
  const out = new Int16Array(keyList.length).fill(-1);
  for (let i = 0; i < keyList.length; i++) {
    const messages = candidates[i];
    for (let j = 0; j < messages.length; j++) {
      if (check(keyList[i], signatures[i], messages[j])) {
        out[i] = j;
        break;
      }
    }
  }
  return out;
}

// Started by verifier.ts (which marks its workers): answer the tasks of a turn with their
// results in one Int16Array, its buffer transferred rather than copied.
if (parentPort !== null && workerData?.perpsimVerifier === true) {
  const port = parentPort;
  let answers = [];
  const answer = () => {
    const found = answers.length === 1 ? answers[0] : concat(answers);
    answers = [];
    port.postMessage(found, [found.buffer]);
  };
  port.on('message', (task) => {
    answers.push(verifyBatch(task));
    if (answers.length === 1) setImmediate(answer);
  });
}

function concat(parts) {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Int16Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
