-- The email outbox: one row per message, written in the transaction of the
-- change that causes it and delivered by the mail worker. message_id is the
-- Message-ID the message is sent with, fixed when the row is written, so a
-- row is one message whatever happens to its delivery. status: queued
-- (waiting or retrying), sent, failed (gave up, or a delivery was
-- interrupted and is not retried so that it cannot arrive twice), kept (no
-- SMTP_URL: kept here, never sent). Times are Unix milliseconds.
CREATE TABLE outbox (
    id            {{ID}},
    message_id    TEXT NOT NULL UNIQUE,
    kind          TEXT NOT NULL,
    to_addr       TEXT NOT NULL,
    from_addr     TEXT NOT NULL,
    subject       TEXT NOT NULL,
    text_body     TEXT NOT NULL,
    html_body     TEXT NOT NULL,
    status        TEXT NOT NULL,
    attempts      BIGINT NOT NULL DEFAULT 0,
    next_at       BIGINT NOT NULL,
    claimed_until BIGINT,
    last_error    TEXT NOT NULL DEFAULT '',
    created_at    BIGINT NOT NULL,
    sent_at       BIGINT
);
CREATE INDEX outbox_due ON outbox (status, next_at);
