package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Read-ahead. On loopback a query's own work is often smaller than the
// round trip to the server, which the machine's load can stretch to
// milliseconds; SQLite, in process, pays none. So where the query layer
// always asks B right after A, the reader asks for both in one round trip
// (a pgx batch, or a subquery) and keeps B's rows for the request:
//
//   - SymbolByKey and LookupSymbols read the members of the types and
//     interfaces they return (get_symbol lists them: Children);
//   - Implementations by type reads the methods of the interfaces it
//     returns (find_references looks for the related interface methods
//     among them: Children);
//   - Refs reads the declarations enclosing the page's uses
//     (find_references names them: SymbolsByKeys);
//   - SymbolByKey reads the first page of uses the request said it would
//     ask for next (graph.WithRefsAhead: find_references by stable key
//     asks for the symbol's uses once it has the symbol), and then not
//     the members, which such a request does not list; and when the name
//     tables in memory say the symbol is a method, what find_references
//     reads next to find the methods related to it: the implementations
//     of its receiver with their interfaces' methods, and for an
//     interface method its implementing methods (Implementations);
//   - the pinning batch reads the symbol the request said it reads first
//     (graph.WithSymbolAhead), with all SymbolByKey reads ahead, or the
//     lookups of a qualified name (graph.WithLookupsAhead), with the
//     members LookupSymbols reads ahead.
//
// And where the name tables in memory hold the answer, nothing is read:
// a brief FindSymbols, and the enclosing declarations of a request that
// only names them (graph.WithEnclosingNames, QualifiedNames).
//
// The rows come from the reader's own transaction, so they belong to the
// pinned view like every other answer, and they are dropped with the
// reader.

// kidsKey names one Children call: repository ("" for every one) and
// parent key.
type kidsKey struct{ repo, parent string }

// queueChildren queues on batch the members of the parents that kb's
// conditions select (on alias s of the symbols table), in Children's order
// (repository, path, position).
func (r *reader) queueChildren(batch *pgx.Batch, kb *builder) {
	from := r.from(kb, "symbols", "s")
	batch.Queue(`SELECT `+symbolColumns+from+kb.Clause()+` ORDER BY r.name, s.path, s.start_line, s.start_col, s.id`,
		kb.Args...)
}

// batchSymbols reads the next result of a batch as symbols.
func batchSymbols(rs pgx.BatchResults) ([]graph.Symbol, error) {
	rows, err := rs.Query()
	if err != nil {
		return nil, fmt.Errorf("querying symbols: %w", err)
	}
	syms, _, err := scanSymbols(rows)
	return syms, err
}

// batchSymbolsAndMembers reads the next two results of a batch: symbols,
// then the members queueChildren queued for them.
func batchSymbolsAndMembers(rs pgx.BatchResults) (syms, members []graph.Symbol, err error) {
	if syms, err = batchSymbols(rs); err != nil {
		return nil, nil, err
	}
	if members, err = batchSymbols(rs); err != nil {
		return nil, nil, err
	}
	return syms, members, nil
}

// sendWithChildren sends batch, whose first query is read by first and
// whose second is the members' query of queueChildren, and keeps the
// members of the parents that parents() then names (those the members'
// query selected) for Children, under every pinned repository and "".
func (r *reader) sendWithChildren(ctx context.Context, batch *pgx.Batch, first func(pgx.BatchResults) error,
	parents func() []string) error {
	rs := r.tx.SendBatch(ctx, batch)
	defer rs.Close()
	if err := first(rs); err != nil {
		return err
	}
	kids, err := batchSymbols(rs)
	if err != nil {
		return err
	}
	if err := rs.Close(); err != nil {
		return err
	}
	r.keepChildren(parents(), kids)
	return nil
}

// keepChildren records kids, the members of every parent in parents in
// every pinned snapshot, in Children's order, as the answers of Children.
func (r *reader) keepChildren(parents []string, kids []graph.Symbol) {
	if len(parents) == 0 {
		return
	}
	if r.kids == nil {
		r.kids = map[kidsKey][]graph.Symbol{}
	}
	for _, p := range parents {
		r.kids[kidsKey{"", p}] = []graph.Symbol{}
		for _, pin := range r.pins {
			r.kids[kidsKey{pin.name, p}] = []graph.Symbol{}
		}
	}
	for _, k := range kids {
		all, repo := kidsKey{"", k.Parent}, kidsKey{k.Repository, k.Parent}
		if _, ok := r.kids[all]; !ok {
			continue // not a parent asked for (cannot happen)
		}
		r.kids[all] = append(r.kids[all], k)
		r.kids[repo] = append(r.kids[repo], k)
	}
}

// keepSymbols records syms, every symbol of every pinned snapshot whose
// key is in keys, as the answers of SymbolsByKeys.
func (r *reader) keepSymbols(keys []string, syms []graph.Symbol) {
	if r.byKey == nil {
		r.byKey = map[string][]graph.Symbol{}
	}
	fresh := map[string]bool{} // keys not kept before: the same view gives a kept key the same rows
	for _, k := range keys {
		if _, ok := r.byKey[k]; !ok {
			r.byKey[k] = []graph.Symbol{}
			fresh[k] = true
		}
	}
	for _, s := range syms {
		if fresh[s.Key] {
			r.byKey[s.Key] = append(r.byKey[s.Key], s)
		}
	}
}

// prefetched answers SymbolsByKeys from what was read ahead, when it
// holds every key.
func (r *reader) prefetched(keys []string) ([]graph.Symbol, bool) {
	if r.byKey == nil {
		return nil, false
	}
	var out []graph.Symbol
	for _, k := range uniq(keys) {
		syms, ok := r.byKey[k]
		if !ok {
			return nil, false
		}
		out = append(out, syms...)
	}
	return slices.Clone(out), true
}

// implsKey names one Implementations call: the key and the side it is on.
type implsKey struct {
	key         string
	byInterface bool
}

// queueRelated queues on batch, after SymbolByKey's queries for key, what
// find_references reads next of a method to find the methods related to
// it: the implementations of its receiver (the parent of the symbol
// SymbolByKey answers) with the members of their interfaces, and for an
// interface method the methods implementing it. It queues nothing, and
// returns nil, unless a loaded name table says key is a method: the
// kind decides only whether the reads are worth a query, the rows kept
// are those of the receiver the server found. The returned function reads
// the results, given the symbols SymbolByKey read, and keeps them for
// Implementations and Children.
func (r *reader) queueRelated(batch *pgx.Batch, key string) func(pgx.BatchResults, []graph.Symbol) error {
	kind := r.kindInMemory(key)
	if kind != graph.KindMethod && kind != graph.KindInterfaceMethod {
		return nil
	}
	// The receiver's key, as a subquery; its implementations, then the
	// members of their interfaces; an interface method's implementations.
	receiver := func(b *builder) string {
		from := r.from(b, "symbols", "s")
		b.Where("s.key = %s", key)
		sub := "(SELECT s.parent" + from + b.Clause() + " ORDER BY r.name, s.id LIMIT 1)"
		b.Conds = nil
		return sub
	}
	query, args := r.implementationsQuery(false, receiver)
	batch.Queue(query, args...)
	r.queueInterfaceMembers(batch, receiver)
	iface := kind == graph.KindInterfaceMethod
	if iface {
		query, args := r.implementationsQuery(true, func(b *builder) string { return b.Arg(key) })
		batch.Queue(query, args...)
	}
	return func(rs pgx.BatchResults, syms []graph.Symbol) error {
		supers, err := batchImplementations(rs)
		if err != nil {
			return err
		}
		kids, err := batchSymbols(rs)
		if err != nil {
			return err
		}
		if r.impls == nil {
			r.impls = map[implsKey][]graph.Implements{}
		}
		if iface {
			subs, err := batchImplementations(rs)
			if err != nil {
				return err
			}
			r.impls[implsKey{key, true}] = subs
		}
		if len(syms) == 0 || syms[0].Parent == "" {
			return nil // no receiver: nothing was read for one
		}
		r.impls[implsKey{syms[0].Parent, false}] = supers
		r.keepChildren(interfacesOf(supers), kids)
		return nil
	}
}

// kindInMemory returns the kind of the symbol of key in the first loaded
// name table of the pinned snapshots that holds it, or "".
func (r *reader) kindInMemory(key string) graph.Kind {
	if r.pinning {
		return "" // the snapshots are not known yet
	}
	for _, p := range r.pins {
		if t := r.names.Loaded(p.snapshot); t != nil {
			if e := t.Entry(key); e != nil {
				return e.Kind
			}
		}
	}
	return ""
}
