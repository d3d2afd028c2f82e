/**
 * The venue's networks as the wallet signatures see them: chain id and BridgeVault contract.
 *
 * Contract (supplement §5, §13): chainId mainnet 4663, testnet 46630 (Robinhood Chain testnet),
 * staging 421614. The Withdraw and Transfer domains carry the BridgeVault address as
 * `verifyingContract`: testnet and staging are published, mainnet is not (null here; a perpsim
 * configured as mainnet must supply one). The API key domain has no verifyingContract. perpsim
 * takes its network from configuration; `walletDomainConfig` applies overrides.
 */
import type { Address } from './address.ts';

export interface ArcusNetwork {
  readonly chainId: number;
  /** BridgeVault, the Withdraw/Transfer `verifyingContract`; null when unpublished. */
  readonly verifyingContract: Address | null;
}

export const ARCUS_NETWORKS = {
  mainnet: { chainId: 4663, verifyingContract: null },
  testnet: { chainId: 46630, verifyingContract: '0xe0166c85fcb29ea6d21915dd0dc54387e8d17915' },
  staging: { chainId: 421614, verifyingContract: '0xe91f43c1ad084463db129034fb7b93545dfe1d4e' },
} as const satisfies Record<string, ArcusNetwork>;

export type ArcusNetworkName = keyof typeof ARCUS_NETWORKS;

/** What the wallet-signature checks need: the chain id, and the contract for Withdraw/Transfer. */
export interface WalletDomainConfig {
  readonly chainId: number;
  readonly verifyingContract: Address | null;
}

/** A network's domain settings with optional overrides (e.g. a mainnet contract, a custom chain id). */
export function walletDomainConfig(network: ArcusNetworkName, overrides: Partial<WalletDomainConfig> = {}): WalletDomainConfig {
  const base: ArcusNetwork = ARCUS_NETWORKS[network];
  return {
    chainId: overrides.chainId ?? base.chainId,
    verifyingContract: overrides.verifyingContract !== undefined ? overrides.verifyingContract : base.verifyingContract,
  };
}
