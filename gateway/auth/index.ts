/**
 * The gateway's authentication module: pure functions, no I/O, no clock of its own.
 *
 * | file | concept |
 * |---|---|
 * | `errors.ts` | the refusals, as `{status, error}` data |
 * | `headers.ts` | the header triple / envelope fields: shape and timestamp window |
 * | `timestamp.ts` | nanosecond timestamps, the 30 s window against the wall or simulator clock |
 * | `ed25519.ts` | API-key signature verification on node:crypto, KeyObject cache |
 * | `canonical-json.ts` | sorted-key, whitespace-free, bigint-safe JSON |
 * | `scheme1.ts` | typed payloads of order writes and API-key withdrawals |
 * | `scheme2.ts` | `timestamp + action + canonical_json(body)` messages |
 * | `wallet-signature.ts` | `{r, s, v}` to a 65-byte signature |
 * | `chains.ts` | chain ids and BridgeVault contracts |
 * | `eip712.ts` | CreateApiKey, RevokeApiKey, Withdraw, Transfer typed data |
 * | `eip191.ts` | legacy personal_sign key messages |
 * | `api-key-signer.ts` | either form for createApiKey / revokeApiKey |
 * | `address.ts`, `hex.ts` | input shapes |
 */
export { normalizeAddress, type Address } from './address.ts';
export { recoverApiKeyCreator, recoverApiKeyRevoker, type KeySigner, type KeySignatureScheme } from './api-key-signer.ts';
export { canonicalJson, type JsonValue } from './canonical-json.ts';
export { ARCUS_NETWORKS, walletDomainConfig, type ArcusNetwork, type ArcusNetworkName, type WalletDomainConfig } from './chains.ts';
export {
  API_KEY_HEX_LENGTH,
  SIGNATURE_HEX_LENGTH,
  checkEd25519Hex,
  clearEd25519KeyCache,
  configureEd25519KeyCache,
  ed25519PublicKey,
  isApiKeyHex,
  isSignatureHex,
  verifyEd25519,
} from './ed25519.ts';
export {
  LEGACY_KEY_SIGNATURE_ACCOUNT_INDEX,
  legacyCreateApiKeyText,
  legacyRevokeApiKeyText,
  recoverLegacyCreateApiKeySigner,
  recoverLegacyRevokeApiKeySigner,
  recoverPersonalSignSigner,
  type LegacyCreateApiKeyMessage,
  type LegacyRevokeApiKeyMessage,
} from './eip191.ts';
export {
  API_KEY_DOMAIN_NAME,
  CREATE_API_KEY_TYPES,
  DOMAIN_VERSION,
  REVOKE_API_KEY_TYPES,
  TRANSFER_DOMAIN_NAME,
  TRANSFER_TYPES,
  WITHDRAW_DOMAIN_NAME,
  WITHDRAW_TYPES,
  apiKeyDomain,
  createApiKeyForms,
  recoverCreateApiKeySigner,
  recoverFirstMatchingSigner,
  recoverRevokeApiKeySigner,
  recoverTransferSigner,
  recoverTypedDataSigner,
  recoverWithdrawSigner,
  revokeApiKeyForms,
  transferForm,
  vaultDomain,
  withdrawForm,
  type CreateApiKeyMessage,
  type RevokeApiKeyMessage,
  type TransferMessage,
  type TypedDataDomain,
  type TypedDataForm,
  type TypedField,
  type WithdrawMessage,
} from './eip712.ts';
export { AUTH_ERRORS, fail, ok, type AuthError, type AuthErrorName, type AuthResult } from './errors.ts';
export {
  checkSignedHeaders,
  headersFromHttp,
  type CheckedHeaders,
  type OuterSignatureRule,
  type SignedHeaders,
} from './headers.ts';
export {
  SCHEME1_KEYS,
  SIGNED_PAYLOAD_VERSION,
  checkBatchSignatureHeader,
  goodTilTimeNs,
  scheme1Candidates,
  scheme1Payload,
  verifyScheme1,
  type CancelPayloadFields,
  type IntValue,
  type ModifyPayloadFields,
  type OrderPayloadFields,
  type Scheme1FieldsByOp,
  type Scheme1Key,
  type Scheme1Op,
  type Scheme1VerifyFieldsByOp,
  type WithdrawPayloadFields,
} from './scheme1.ts';
export {
  VERBATIM_ACTION_PREFIX,
  lastPathSegment,
  requestPath,
  scheme2Action,
  scheme2Actions,
  scheme2Candidates,
  scheme2Message,
  signedGetMessage,
  verifyScheme2,
  verifySignedGet,
  type Scheme2Request,
} from './scheme2.ts';
export {
  MIN_NANOSECOND_TIMESTAMP,
  checkTimestamp,
  parseTimestampNs,
  withinDrift,
  type ServerClocks,
} from './timestamp.ts';
export { normalizeWalletSignature, recoveryBit, type Hex, type WalletSignatureParts } from './wallet-signature.ts';
