/** Notifications and preferences operations (see operations/index.ts). */
import type { Operation } from '../../contract/operation.ts';
import { notificationTokens } from './notification-tokens.ts';
import { notifications } from './notifications.ts';
import { notificationsMarkSeen } from './notifications-mark-seen.ts';
import { userPreferences } from './user-preferences.ts';
import { userPreferencesUpdate } from './user-preferences-update.ts';

export const NOTIFICATIONS: readonly Operation[] = [notifications, notificationTokens, notificationsMarkSeen, userPreferences, userPreferencesUpdate];
