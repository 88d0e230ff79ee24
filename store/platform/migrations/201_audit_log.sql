-- The audit log: one row per staff change, written in the change's own
-- transaction (store/audit). actor_id and actor_name are who (the name as
-- it was then), kind what sort of change (e.g. item.price, refund,
-- staff.role), target what it was made to, before_json and after_json
-- the changed fields' values (a JSON object each), addr the client's
-- address. Rows are only ever inserted.
CREATE TABLE audit_log (
    id          {{ID}},
    at          BIGINT NOT NULL,
    actor_id    BIGINT NOT NULL,
    actor_name  TEXT NOT NULL,
    kind        TEXT NOT NULL,
    target      TEXT NOT NULL,
    before_json TEXT NOT NULL,
    after_json  TEXT NOT NULL,
    addr        TEXT NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE INDEX audit_log_actor ON audit_log (actor_name, at);
CREATE INDEX audit_log_kind ON audit_log (kind, at);
