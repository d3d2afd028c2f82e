import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import * as auth from '../gateway/auth/index.ts';

describe('the auth module\'s exports', () => {
  it('match this list (a change to the public surface shows up here)', () => {
    expect(Object.keys(auth).sort()).toMatchInlineSnapshot(`
      [
        "API_KEY_DOMAIN_NAME",
        "API_KEY_HEX_LENGTH",
        "ARCUS_NETWORKS",
        "AUTH_ERRORS",
        "CREATE_API_KEY_TYPES",
        "DOMAIN_VERSION",
        "LEGACY_KEY_SIGNATURE_ACCOUNT_INDEX",
        "MIN_NANOSECOND_TIMESTAMP",
        "REVOKE_API_KEY_TYPES",
        "SCHEME1_KEYS",
        "SIGNATURE_HEX_LENGTH",
        "SIGNED_PAYLOAD_VERSION",
        "TRANSFER_DOMAIN_NAME",
        "TRANSFER_TYPES",
        "VERBATIM_ACTION_PREFIX",
        "WITHDRAW_DOMAIN_NAME",
        "WITHDRAW_TYPES",
        "apiKeyDomain",
        "canonicalJson",
        "checkBatchSignatureHeader",
        "checkEd25519Hex",
        "checkSignedHeaders",
        "checkTimestamp",
        "clearEd25519KeyCache",
        "configureEd25519KeyCache",
        "createApiKeyForms",
        "ed25519PublicKey",
        "fail",
        "goodTilTimeNs",
        "headersFromHttp",
        "isApiKeyHex",
        "isSignatureHex",
        "lastPathSegment",
        "legacyCreateApiKeyText",
        "legacyRevokeApiKeyText",
        "normalizeAddress",
        "normalizeWalletSignature",
        "ok",
        "parseTimestampNs",
        "recoverApiKeyCreator",
        "recoverApiKeyRevoker",
        "recoverCreateApiKeySigner",
        "recoverFirstMatchingSigner",
        "recoverLegacyCreateApiKeySigner",
        "recoverLegacyRevokeApiKeySigner",
        "recoverPersonalSignSigner",
        "recoverRevokeApiKeySigner",
        "recoverTransferSigner",
        "recoverTypedDataSigner",
        "recoverWithdrawSigner",
        "recoveryBit",
        "requestPath",
        "revokeApiKeyForms",
        "scheme1Candidates",
        "scheme1Payload",
        "scheme2Action",
        "scheme2Actions",
        "scheme2Candidates",
        "scheme2Message",
        "signedGetMessage",
        "transferForm",
        "vaultDomain",
        "verifyEd25519",
        "verifyScheme1",
        "verifyScheme2",
        "verifySignedGet",
        "walletDomainConfig",
        "withdrawForm",
        "withinDrift",
      ]
    `);
  });
});

describe('error vocabulary: plain {status, error} data the gateway turns into HTTP bodies', () => {
  it('answers a bad signature as supplement §10 does: 401 {"error":"invalid signature"}', () => {
    expect(auth.AUTH_ERRORS.invalidSignature).toEqual({ status: 401, error: 'invalid signature' });
  });

  it('uses 401 for key, signature and timestamp failures, 400 for malformed input, 403 for a foreign address', () => {
    const byStatus = (status: number): string[] =>
      Object.entries(auth.AUTH_ERRORS).filter(([, e]) => e.status === status).map(([name]) => name).sort();
    expect(byStatus(400)).toEqual(['invalidAddress', 'malformedSignature', 'malformedWalletSignature']);
    expect(byStatus(403)).toEqual(['addressMismatch']);
    expect(auth.AUTH_ERRORS.timestampOutOfWindow).toEqual({ status: 401, error: 'timestamp out of window' });
    expect(auth.AUTH_ERRORS.timestampNotNanoseconds).toEqual({ status: 401, error: 'timestamp must be in nanoseconds' });
  });

  it('normalizes addresses per the Conventions pattern, lowercase after 0x', () => {
    expect(auth.normalizeAddress('0XAB5801A7D398351B8BE11C439E05C5B3259AEC9B')).toBe('0xab5801a7d398351b8be11c439e05c5b3259aec9b');
    expect(auth.normalizeAddress('ab5801a7d398351b8be11c439e05c5b3259aec9b')).toBe('0xab5801a7d398351b8be11c439e05c5b3259aec9b');
    expect(auth.normalizeAddress('0xab5801a7d398351b8be11c439e05c5b3259aec9')).toBeNull();
    expect(auth.normalizeAddress(42)).toBeNull();
  });
});

// Benchmarks are not timed tests: this proves the script runs on a small count and ends with its JSON line.
describe('bench/ed25519.bench.ts ends with one JSON line of its figures', () => {
  it('prints nodeCryptoVerifiesPerSec and nobleVerifiesPerSec', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/ed25519.bench.ts'], {
      env: { ...process.env, BENCH_OPS: '200' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const figures = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(figures.bench).toBe('ed25519');
    expect(typeof figures.nodeCryptoVerifiesPerSec).toBe('number');
    expect(typeof figures.nobleVerifiesPerSec).toBe('number');
  });
});
