-- The payment provider's page an order awaiting payment was sent to (a
-- Stripe Checkout Session id), so that "pay now" resumes it while it is
-- open and makes a new one once it expired.
ALTER TABLE orders ADD COLUMN payment_session TEXT NOT NULL DEFAULT '';
