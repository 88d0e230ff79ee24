-- How a return's refund was settled by hand (the admin's note), '' when
-- its payment method gave the money back.
ALTER TABLE returns ADD COLUMN note TEXT NOT NULL DEFAULT '';
