-- Schema version 3: full-text search for search_code (graph.Reader.
-- SearchText). The writer stores, per symbol, the words it is found by,
-- split the way graph.SearchWords splits identifiers (ParseConfig: parse,
-- config, parseconfig), one column per field; a stored generated column
-- folds them into one tsvector with the english configuration (so retry
-- matches retries) and a weight per field: the name (A) says most, then
-- the doc comment (B), the signature and the path (C), the body's
-- literals and comments (D). Snapshots published before this version have
-- no words and are found once their repository is published again.
ALTER TABLE symbols
	ADD COLUMN w_name text NOT NULL DEFAULT '',
	ADD COLUMN w_doc text NOT NULL DEFAULT '',
	ADD COLUMN w_sig text NOT NULL DEFAULT '',
	ADD COLUMN w_body text NOT NULL DEFAULT '',
	ADD COLUMN w_path text NOT NULL DEFAULT '',
	ADD COLUMN search tsvector GENERATED ALWAYS AS (
		setweight(to_tsvector('english'::regconfig, w_name), 'A') ||
		setweight(to_tsvector('english'::regconfig, w_doc), 'B') ||
		setweight(to_tsvector('english'::regconfig, w_sig || ' ' || w_path), 'C') ||
		setweight(to_tsvector('english'::regconfig, w_body), 'D')) STORED;
CREATE INDEX symbols_search ON symbols USING gin (search);
