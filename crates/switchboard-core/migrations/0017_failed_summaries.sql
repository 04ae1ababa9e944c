-- A task whose summary says it failed is failed (issue 23), where before it
-- was recorded as completed. Tasks recorded so by earlier versions are
-- failed now, their result (the summary) kept, and as their reason the
-- agent's words where the parsed summary has them (its first note); the
-- live rule reads the Status line too (`summary::stated_reason`), which
-- the stored summary no longer holds apart.
UPDATE tasks
SET state = 'failed',
    reason = 'the agent says it failed'
        || COALESCE(': ' || NULLIF(TRIM(json_extract(result, '$.summary.notes[0]')), ''), '')
WHERE state = 'completed'
  AND json_valid(result)
  AND json_extract(result, '$.summary.status') = 'failed';
