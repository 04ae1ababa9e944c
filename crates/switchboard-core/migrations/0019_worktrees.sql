-- Agents that work apart: where a profile's tasks work ('none': its folder;
-- 'worktree': each task, and each loop, in a git worktree of its own).
ALTER TABLE profiles ADD COLUMN isolation TEXT NOT NULL DEFAULT 'none' CHECK (isolation IN ('none', 'worktree'));
-- The folder a session works in when it is not its profile's (a worktree).
ALTER TABLE sessions ADD COLUMN workspace TEXT;
-- The worktree a task runs in when it is not one made for it (a review's
-- follow-up, a loop's iteration): the task or loop it was made for.
ALTER TABLE tasks ADD COLUMN worktree TEXT;
-- The branch a task's new worktree is made from (none: the folder's branch).
ALTER TABLE tasks ADD COLUMN base TEXT;

-- The worktrees the app made, one per task or loop (`owner`: its id).
-- `setup`: the repository's setup command has run in it ('done'), or is
-- still to run ('pending'). `state`: 'open' until merged or discarded.
CREATE TABLE worktrees (
    owner       TEXT PRIMARY KEY NOT NULL,
    loop_id     TEXT,
    profile_id  TEXT NOT NULL,
    repository  TEXT NOT NULL,
    branch      TEXT NOT NULL,
    base        TEXT NOT NULL,
    path        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    setup       TEXT NOT NULL CHECK (setup IN ('pending', 'done')),
    state       TEXT NOT NULL CHECK (state IN ('open', 'merged', 'discarded')),
    ended_at    INTEGER,
    patch       TEXT,
    conflict    TEXT NOT NULL DEFAULT '[]'
) STRICT;
CREATE INDEX worktrees_open ON worktrees(state, created_at);

-- Each repository's own settings: the command run in a new worktree.
CREATE TABLE repositories (
    root          TEXT PRIMARY KEY NOT NULL,
    setup_command TEXT
) STRICT;
