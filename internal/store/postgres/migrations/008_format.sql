-- Schema version 8: the format of a snapshot's records
-- (graph.Snapshot.Format): 0 in the snapshots published before.
ALTER TABLE snapshots ADD COLUMN format integer NOT NULL DEFAULT 0;
