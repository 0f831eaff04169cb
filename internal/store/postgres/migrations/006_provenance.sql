-- Schema version 6: what made a snapshot (graph.Snapshot.Build and
-- Indexers, one per line): '' in the snapshots published before.
ALTER TABLE snapshots ADD COLUMN build text NOT NULL DEFAULT '';
ALTER TABLE snapshots ADD COLUMN indexers text NOT NULL DEFAULT '';
