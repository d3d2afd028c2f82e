/**
 * The wallet-signature network of one gateway: the chain id (and BridgeVault contract) that the
 * EIP-712 domains of createApiKey, revokeApiKey, withdraw and transfer carry.
 *
 * Contract (supplement §5, §13): perpsim answers as the venue's testnet by default — chainId
 * 46630 and the testnet BridgeVault `0xe0166c85fcb29ea6d21915dd0dc54387e8d17915` as the
 * Withdraw/Transfer `verifyingContract` (`ARCUS_NETWORKS.testnet`). `GatewayState` has no
 * setting for it, so an override lives beside the state, keyed by it (a WeakMap: it goes away
 * with the state). `setNetwork` takes a network name with optional overrides (e.g. a mainnet
 * contract, which the venue has not published) or a full domain config.
 */
import { walletDomainConfig, type ArcusNetworkName, type WalletDomainConfig } from './auth/index.ts';
import type { GatewayState } from './operation.ts';

/** The network a gateway answers as when nobody said otherwise. */
export const DEFAULT_NETWORK: WalletDomainConfig = walletDomainConfig('testnet');

const networks = new WeakMap<GatewayState, WalletDomainConfig>();

/** The chain id and verifyingContract this gateway's wallet signatures are checked against. */
export function networkOf(state: GatewayState): WalletDomainConfig {
  return networks.get(state) ?? DEFAULT_NETWORK;
}

/**
 * Sets the network of one gateway.
 *
 * @example setNetwork(state, 'staging')
 * @example setNetwork(state, 'mainnet', { verifyingContract: '0x…' })
 * @example setNetwork(state, { chainId: 31337, verifyingContract: '0x…' })
 */
export function setNetwork(state: GatewayState, network: ArcusNetworkName | WalletDomainConfig, overrides: Partial<WalletDomainConfig> = {}): WalletDomainConfig {
  const config = typeof network === 'string' ? walletDomainConfig(network, overrides) : { ...network, ...overrides };
  networks.set(state, config);
  return config;
}
