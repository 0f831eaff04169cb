-- Schema version 5: the language of each symbol (graph.Symbol.Language):
-- '' for the Go symbols of snapshots published before, which read back
-- as they were written.
ALTER TABLE symbols ADD COLUMN language text NOT NULL DEFAULT '';
