-- Delegations the user approved: which agent session works for which
-- requester, so the delegate's report (or its end) resumes the right
-- requester, also after a restart. `record` is the whole Delegation as JSON;
-- `open` is whether the requester still waits for its outcome.
CREATE TABLE delegations (
    delegate_session  TEXT PRIMARY KEY NOT NULL,
    requester_session TEXT NOT NULL,
    open              INTEGER NOT NULL CHECK (open IN (0, 1)),
    created_at        INTEGER NOT NULL,
    record            TEXT NOT NULL
) STRICT;
CREATE INDEX delegations_open ON delegations(open) WHERE open = 1;
