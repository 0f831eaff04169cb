-- Schema version 2: effect records (graph.EffectRecord), one row per
-- effect of a function, keyed by snapshot like everything else. effect is
-- the same small integer as in the sqlite store (effectNames); optional
-- strings are NULL when empty. Snapshots published before this version
-- simply have no records, which readers report as "not analysed" until
-- the next publish of their repository.
CREATE TABLE effects (
	snapshot_id bigint NOT NULL,
	func text COLLATE "C" NOT NULL,
	effect smallint NOT NULL,
	direct boolean NOT NULL,
	certain boolean NOT NULL,
	path text COLLATE "C" NOT NULL,
	line integer NOT NULL,
	col integer NOT NULL,
	next text COLLATE "C",
	callee text COLLATE "C",
	detail text COLLATE "C"
);
CREATE INDEX effects_func ON effects (snapshot_id, func);
