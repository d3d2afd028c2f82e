/**
 * The wallet-signature network of one gateway: the chain id (and BridgeVault contract) that the
 * EIP-712 domains of createApiKey, revokeApiKey, withdraw and transfer carry.
 *
 * Contract (supplement §5, §13): perpsim answers as the venue's testnet by default — chainId
 * 46630 and the testnet BridgeVault `0xe0166c85fcb29ea6d21915dd0dc54387e8d17915` as the
 * Withdraw/Transfer `verifyingContract` (`ARCUS_NETWORKS.testnet`). It is the gateway's
 * `network` field (createGateway's `network` option); `setNetwork` changes it later, by network
 * name with optional overrides (e.g. a mainnet contract, which the venue has not published) or
 * as a full domain config.
 */
import { walletDomainConfig, type ArcusNetworkName, type WalletDomainConfig } from './index.ts';

/** The network a gateway answers as when nobody said otherwise. */
export const DEFAULT_NETWORK: WalletDomainConfig = walletDomainConfig('testnet');

/** A network by name (with overrides) or a full domain config, as one domain config. */
export function networkConfig(network: ArcusNetworkName | WalletDomainConfig, overrides: Partial<WalletDomainConfig> = {}): WalletDomainConfig {
  return typeof network === 'string' ? walletDomainConfig(network, overrides) : { ...network, ...overrides };
}

/**
 * Sets the network of one gateway.
 *
 * @example setNetwork(state, 'staging')
 * @example setNetwork(state, 'mainnet', { verifyingContract: '0x…' })
 * @example setNetwork(state, { chainId: 31337, verifyingContract: '0x…' })
 */
export function setNetwork(state: { network: WalletDomainConfig }, network: ArcusNetworkName | WalletDomainConfig, overrides: Partial<WalletDomainConfig> = {}): WalletDomainConfig {
  state.network = networkConfig(network, overrides);
  return state.network;
}
