-- The per-customer cap of a code counts an account and an email address as
-- one customer: email is the buyer's address, trimmed and in lower case
-- (the account's for a member, '' when it has none), so a guest using a
-- member's address, in any case, counts against the member's uses and the
-- other way round.
ALTER TABLE discount_uses ADD COLUMN email TEXT NOT NULL DEFAULT '';
UPDATE discount_uses SET email = SUBSTR(customer, 7) WHERE customer LIKE 'email:%';
UPDATE discount_uses SET email = COALESCE((SELECT LOWER(TRIM(u.email)) FROM users u
    WHERE 'user:' || CAST(u.id AS TEXT) = discount_uses.customer), '')
    WHERE customer LIKE 'user:%';
CREATE INDEX discount_uses_email ON discount_uses (code_id, email);
