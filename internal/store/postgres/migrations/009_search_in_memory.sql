-- Schema version 9: search_code ranks in memory (internal/store/textindex)
-- from the word columns of version 3, as the sqlite store does, so the
-- weighted tsvector derived from them, and its GIN index, which every
-- published symbol paid for, go.
DROP INDEX IF EXISTS symbols_search;
ALTER TABLE symbols DROP COLUMN IF EXISTS search;
