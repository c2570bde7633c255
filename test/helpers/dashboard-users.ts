import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import {
  type AddedUser,
  addUserToWorkspace,
  changePassword,
  type UsersDeps,
} from '../../src/modules/users/users.service.js';

/**
 * A dashboard account as its holder has it after the first sign-in: created (or added) by
 * addUserToWorkspace, then, when it got a one-time password, changed to a password of their own,
 * so tests of other pages are not sent to the account page first. `password` is the one to sign
 * in with. The forced change itself is tested in test/dashboard/members-browser.test.ts.
 */
export async function addDashboardUser(
  db: Kysely<Database>,
  deps: UsersDeps,
  input: Parameters<typeof addUserToWorkspace>[2],
): Promise<AddedUser> {
  const added = await addUserToWorkspace(db, deps, input);
  if (!added.password) return added;
  const chosen = `${added.password}-own`;
  await changePassword(db, deps, {
    userId: added.user.id,
    currentPassword: added.password,
    newPassword: chosen,
  });
  return { ...added, user: { ...added.user, must_change_password: false }, password: chosen };
}
