-- Invoice numbers: one counter row, taken in the checkout's transaction,
-- so a checkout that rolls back gives its number back and the numbers
-- have no gaps. Orders placed before are numbered in the order they were
-- placed. An order also keeps the tax rate it was priced at (hundredths
-- of a percent; 0 for an order placed before, whose invoice shows the tax
-- without its rate).
ALTER TABLE orders ADD COLUMN invoice_number BIGINT;
ALTER TABLE orders ADD COLUMN tax_rate_bp BIGINT NOT NULL DEFAULT 0;
UPDATE orders SET invoice_number = r.n
	FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS n FROM orders) AS r
	WHERE orders.id = r.id;
CREATE UNIQUE INDEX orders_invoice_number ON orders (invoice_number);
CREATE TABLE invoice_counter (
	id          INTEGER PRIMARY KEY CHECK (id = 1),
	next_number BIGINT NOT NULL
);
INSERT INTO invoice_counter (id, next_number) SELECT 1, COALESCE(MAX(invoice_number), 0) + 1 FROM orders;
