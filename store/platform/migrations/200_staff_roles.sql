-- Staff roles: what an account may do in /admin ('' for a shopper, else
-- owner, manager, fulfilment, support or moderator). is_admin stays and is
-- kept equal to "has a role", so that code reading it still means staff.
-- Every account that was admin becomes an owner.
ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT '';
UPDATE users SET role = 'owner' WHERE is_admin;
CREATE INDEX users_role ON users (role);
-- A staff invitation is an emailed single-use link (kind 'invite') for an
-- account that does not exist yet (user_id is the guest account, 0); role
-- is what the account it makes will be. invited_by is the owner who sent it.
ALTER TABLE account_tokens ADD COLUMN role TEXT NOT NULL DEFAULT '';
ALTER TABLE account_tokens ADD COLUMN invited_by BIGINT NOT NULL DEFAULT 0;
