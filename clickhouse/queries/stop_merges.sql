-- Stops background merges in every table of the warehouse until it stops, so that rows stored
-- twice stay visible to stored_once.sql (a ReplacingMergeTree merge keeps one of them). For the
-- tests and the demo, issued right after the stack starts and before results arrive.
SYSTEM STOP MERGES
