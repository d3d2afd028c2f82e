/** The affiliate (referral) operations (see operations/index.ts). */
import type { Operation } from '../../contract/operation.ts';
import { affiliateClaim } from './affiliate-claim.ts';
import { affiliateClaimStatus } from './affiliate-claim-status.ts';
import { affiliateClaims } from './affiliate-claims.ts';
import { affiliateCode } from './affiliate-code.ts';
import { affiliateCodeAvailable } from './affiliate-code-available.ts';
import { affiliateCommissions } from './affiliate-commissions.ts';
import { affiliateCreateCode } from './affiliate-create-code.ts';
import { affiliateInfo } from './affiliate-info.ts';
import { affiliateInviteCodes } from './affiliate-invite-codes.ts';
import { affiliateLeaderboard } from './affiliate-leaderboard.ts';
import { affiliateKickback } from './affiliate-kickback.ts';
import { affiliateModifyCode } from './affiliate-modify-code.ts';
import { affiliateMyReferrer } from './affiliate-my-referrer.ts';
import { affiliateRedeemInvite } from './affiliate-redeem-invite.ts';
import { affiliateReferees } from './affiliate-referees.ts';
import { affiliateRevokeCode } from './affiliate-revoke-code.ts';
import { affiliateRegisterAffiliate } from './affiliate-register.ts';
import { commissionRates } from './commission-rates.ts';

export const AFFILIATE: readonly Operation[] = [
  commissionRates,
  affiliateCreateCode,
  affiliateModifyCode,
  affiliateRevokeCode,
  affiliateKickback,
  affiliateRegisterAffiliate,
  affiliateRedeemInvite,
  affiliateClaim,
  affiliateInviteCodes,
  affiliateInfo,
  affiliateCode,
  affiliateReferees,
  affiliateCommissions,
  affiliateMyReferrer,
  affiliateClaims,
  affiliateClaimStatus,
  affiliateCodeAvailable,
  affiliateLeaderboard,
];
