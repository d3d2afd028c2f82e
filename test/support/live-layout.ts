/**
 * How the differential harness reads the live engine's orders and book (canonical-state.ts):
 * through the engine's own named readers, so the harness follows the engine's storage.
 */
import { LINKED_LAYOUT, type StateLayout } from './canonical-state.ts';

export const LIVE_LAYOUT: StateLayout = LINKED_LAYOUT;
