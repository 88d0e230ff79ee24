-- Orders edited before they ship. edit_version counts the edits: the
-- admin's form carries the version it showed, and an edit sent from an
-- older one is refused, so two staff editing one order at once never
-- overwrite each other unseen. due_cents is the difference an edit asked
-- the shopper to pay on top of what they paid (0: nothing asked), and
-- due_session the payment provider's page for it (a Stripe Checkout
-- Session id, '' before the shopper opened one).
ALTER TABLE orders ADD COLUMN edit_version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN due_cents BIGINT NOT NULL DEFAULT 0 CHECK (due_cents >= 0);
ALTER TABLE orders ADD COLUMN due_session TEXT NOT NULL DEFAULT '';
