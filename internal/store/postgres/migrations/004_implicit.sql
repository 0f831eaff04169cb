-- Schema version 4: an implicit reference (graph.Ref.Implicit, the use of
-- a method declared outside the graph recorded against a method of the
-- graph that corresponds to it) is marked by a column of its own, and its
-- target is the method's stable key like any other. Before, it was stored
-- under the key followed by '~implicit'; those rows are moved to the key.
ALTER TABLE refs ADD COLUMN implicit boolean NOT NULL DEFAULT false;
UPDATE refs SET target = left(target, -length('~implicit')), implicit = true
	WHERE right(target, length('~implicit')) = '~implicit';
