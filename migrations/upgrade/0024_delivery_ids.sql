-- 0024: each message a run hands to a channel is named (`run_deliveries.delivery_id`, 32
-- random hex digits): the webhook's `X-Ratewatch-Delivery` header and the email's
-- Message-ID carry it, the same on every attempt and on every later night that sends the
-- message again, so that a receiver can drop a duplicate. Random rather than derived from
-- the run, so that two databases (a copy, another team's) never name two messages alike.
-- The table is rebuilt as migrations/schema.sql has it; each row recorded so far gets a
-- name of its own here.
DROP INDEX IF EXISTS run_deliveries_pending;
ALTER TABLE run_deliveries RENAME TO old_run_deliveries;

CREATE TABLE run_deliveries (
    run_id       INTEGER NOT NULL REFERENCES runs (id),
    channel      TEXT    NOT NULL CHECK (channel IN ('webhook', 'email')),
    delivery_id  TEXT    NOT NULL,                 -- the message's name: 32 random hex digits,
                                                   -- the same on every attempt and resend
    delivered_at TEXT,                             -- when the channel took it; NULL: pending
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT,                             -- why the last attempt failed
    PRIMARY KEY (run_id, channel)
) WITHOUT ROWID;
CREATE INDEX run_deliveries_pending ON run_deliveries (channel, run_id) WHERE delivered_at IS NULL;

INSERT INTO run_deliveries (run_id, channel, delivery_id, delivered_at, attempts, last_error)
SELECT run_id, channel, lower(hex(randomblob(16))), delivered_at, attempts, last_error
FROM old_run_deliveries;

DROP TABLE old_run_deliveries;
