-- The fulfilment sweep looks for orders still pending after a while.
CREATE INDEX orders_status_created ON orders (status, created_at);
