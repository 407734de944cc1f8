-- 0026: a delivery channel is known by its name alone (`webhook`, `email`, and any channel
-- added later), so `run_deliveries.channel` no longer lists the names it may take: a new
-- channel needs no new schema. The table is rebuilt as migrations/schema.sql has it; every
-- row is kept as it was.
DROP INDEX IF EXISTS run_deliveries_pending;
ALTER TABLE run_deliveries RENAME TO old_run_deliveries;

CREATE TABLE run_deliveries (
    run_id       INTEGER NOT NULL REFERENCES runs (id),
    channel      TEXT    NOT NULL,                 -- the channel's name: 'webhook', 'email', …
    delivery_id  TEXT    NOT NULL,                 -- the message's name: 32 random hex digits,
                                                   -- the same on every attempt and resend
    delivered_at TEXT,                             -- when the channel took it; NULL: pending
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT,                             -- why the last attempt failed
    PRIMARY KEY (run_id, channel)
) WITHOUT ROWID;
CREATE INDEX run_deliveries_pending ON run_deliveries (channel, run_id) WHERE delivered_at IS NULL;

INSERT INTO run_deliveries (run_id, channel, delivery_id, delivered_at, attempts, last_error)
SELECT run_id, channel, delivery_id, delivered_at, attempts, last_error
FROM old_run_deliveries;

DROP TABLE old_run_deliveries;
