// Package sqlbase is what the two SQL stores (internal/store/sqlite and
// internal/store/postgres) share below their schemas: the small integers
// both store for kinds, coverage classes, call modes and effects, the
// builder of WHERE clauses with numbered placeholders, the scan of a
// symbol's common columns and of a repository row, and the words a symbol
// is found by in full-text search. Their schemas differ on purpose (SQLite
// keeps units apart and packs rows; PostgreSQL denormalises for its
// planner), so the SQL text itself stays in each backend.
package sqlbase

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
)

// The codes stored for symbol kinds (symbols.kind), reference kinds
// (refs.kind), coverage classes (edges.coverage), call modes (edges.via)
// and effects (effects.effect), the same in both schemas. They are part
// of the schemas: never renumber, only append (and bump a schema version
// if old builds must not read them). Code 0 of via is the empty Via, for
// edges whose writer left it unset.
var (
	KindNames = [...]graph.Kind{1: graph.KindPackage, 2: graph.KindConst, 3: graph.KindVar, 4: graph.KindType,
		5: graph.KindInterface, 6: graph.KindFunc, 7: graph.KindMethod, 8: graph.KindField, 9: graph.KindInterfaceMethod}
	RefKindNames = [...]graph.RefKind{1: graph.RefCall, 2: graph.RefRead, 3: graph.RefWrite, 4: graph.RefType,
		5: graph.RefImport, 6: graph.RefEmbed, 7: graph.RefOverride}
	CoverageNames = [...]graph.Coverage{1: graph.CoverageExact, 2: graph.CoverageCandidate,
		3: graph.CoverageUnresolved, // the literal 3 of both edges_unresolved indexes
		4: graph.CoveragePackageLevel}
	ViaNames = [...]graph.Via{0: "", 1: graph.ViaStatic, 2: graph.ViaInterface, 3: graph.ViaFuncValue,
		4: graph.ViaGo, 5: graph.ViaDefer}
	EffectNames = [...]graph.Effect{
		1: graph.EffectFS, 2: graph.EffectNet, 3: graph.EffectExec, 4: graph.EffectEnv, 5: graph.EffectExit,
		6: graph.EffectPanic, 7: graph.EffectSpawn, 8: graph.EffectChan, 9: graph.EffectSync, 10: graph.EffectTime,
		11: graph.EffectRand, 12: graph.EffectStdio, 13: graph.EffectGlobal, 14: graph.EffectUnsafe,
		15: graph.EffectCgo, 16: graph.EffectReflect, 17: graph.EffectDB,
		18: graph.EffectOpen, 19: graph.EffectPure,
	}
)

// Code is the integer type a backend reads and writes codes as.
type Code interface{ ~int16 | ~int64 }

// Codes inverts the code tables, for writing: a value's code, and whether
// it has one.
type Codes[C Code] struct {
	Kind     map[graph.Kind]C
	RefKind  map[graph.RefKind]C
	Coverage map[graph.Coverage]C
	Via      map[graph.Via]C // "" is 0
	Effect   map[graph.Effect]C
}

// NewCodes returns the inverted code tables with codes of type C.
func NewCodes[C Code]() Codes[C] {
	via := invert[C](ViaNames[:])
	via[""] = 0
	return Codes[C]{Kind: invert[C](KindNames[:]), RefKind: invert[C](RefKindNames[:]),
		Coverage: invert[C](CoverageNames[:]), Via: via, Effect: invert[C](EffectNames[:])}
}

// invert inverts a code-indexed name table, skipping unused (empty) codes.
func invert[C Code, T ~string](names []T) map[T]C {
	m := make(map[T]C, len(names))
	for c, n := range names {
		if n != "" {
			m[n] = C(c)
		}
	}
	return m
}

// NameOf returns the name stored as code c in names, or "unknown(c)" for
// a code this build does not know.
func NameOf[T ~string, C Code](names []T, c C) T {
	if c >= 0 && int64(c) < int64(len(names)) && (names[c] != "" || c == 0) {
		return names[c]
	}
	return T(fmt.Sprintf("unknown(%d)", c))
}

// Kind reads a stored symbol kind.
func Kind[C Code](c C) graph.Kind { return NameOf(KindNames[:], c) }

// RefKind reads a stored reference kind.
func RefKind[C Code](c C) graph.RefKind { return NameOf(RefKindNames[:], c) }

// Coverage reads a stored coverage class.
func Coverage[C Code](c C) graph.Coverage { return NameOf(CoverageNames[:], c) }

// Via reads a stored call mode.
func Via[C Code](c C) graph.Via { return NameOf(ViaNames[:], c) }

// Effect reads a stored effect.
func Effect[C Code](c C) graph.Effect { return NameOf(EffectNames[:], c) }

// Placeholders is how a dialect writes the placeholder of argument n
// (1-based).
type Placeholders interface {
	Placeholder(n int) string
}

// Question writes SQLite's numbered placeholders: ?1, ?2.
type Question struct{}

// Placeholder implements Placeholders.
func (Question) Placeholder(n int) string { return "?" + strconv.Itoa(n) }

// Dollar writes PostgreSQL's placeholders: $1, $2.
type Dollar struct{}

// Placeholder implements Placeholders.
func (Dollar) Placeholder(n int) string { return "$" + strconv.Itoa(n) }

// Builder accumulates a WHERE clause and its numbered arguments, with
// placeholders written as P writes them. The zero value is empty.
type Builder[P Placeholders] struct {
	Conds []string
	Args  []any
}

// Arg adds v to the arguments and returns its placeholder.
func (b *Builder[P]) Arg(v any) string {
	b.Args = append(b.Args, v)
	var p P
	return p.Placeholder(len(b.Args))
}

// Where adds a condition, formatting placeholders for args into it.
func (b *Builder[P]) Where(format string, args ...any) {
	ph := make([]any, len(args))
	for i, a := range args {
		ph[i] = b.Arg(a)
	}
	b.Conds = append(b.Conds, fmt.Sprintf(format, ph...))
}

// Clause returns " WHERE " and the conditions joined by AND, or "" when
// there are none.
func (b *Builder[P]) Clause() string {
	if len(b.Conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(b.Conds, " AND ")
}

// LookupFilters adds the conditions of l's package, repository and path
// filters (not its name) to b: the package and path columns are those of
// the table aliased unit ("u" for SQLite's units, "s" for PostgreSQL's
// symbols), the repository's name is r.name, and prefix writes the
// backend's prefix test.
func LookupFilters[P Placeholders](b *Builder[P], l graph.Lookup, unit string, prefix func(b *Builder[P], col, p string) string) {
	if l.PackagePath != "" {
		b.Where(unit+".package_path = %s", l.PackagePath)
	}
	if l.PackageName != "" {
		b.Where(unit+".package_name = %s", l.PackageName)
	}
	if l.Repository != "" {
		b.Where("r.name = %s", l.Repository)
	}
	if l.PathPrefix != "" {
		b.Conds = append(b.Conds, prefix(b, unit+".path", l.PathPrefix))
	}
}

// Scanner is a row of either driver (*sql.Row, *sql.Rows, pgx.Row,
// pgx.Rows).
type Scanner interface {
	Scan(dest ...any) error
}

// Rows is a result set of either driver (*sql.Rows, pgx.Rows); the
// caller closes it.
type Rows interface {
	Scanner
	Next() bool
	Err() error
}

// Collect scans every row of rows with scan, wrapping a failure with
// what ("listing files").
func Collect[T any](rows Rows, scan func(Scanner) (T, error), what string) ([]T, error) {
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// ScanImplements reads an implementation pair selected as (type,
// interface, pointer), in both schemas.
func ScanImplements(sc Scanner) (graph.Implements, error) {
	var im graph.Implements
	err := sc.Scan(&im.Type, &im.Interface, &im.Pointer)
	return im, err
}

// FileColumns are the columns of a file, the same in both schemas, as
// ScanFile reads them.
const FileColumns = `path, package, hash, size, mod_time_ns, test, ignored`

// ScanFile reads a row selected with FileColumns.
func ScanFile(sc Scanner) (graph.File, error) {
	var f graph.File
	err := sc.Scan(&f.Path, &f.Package, &f.Hash, &f.Size, &f.ModTimeNS, &f.Test, &f.Ignored)
	return f, err
}

// DiagnosticColumns are the columns of a diagnostic, the same in both
// schemas, as ScanDiagnostic reads them.
const DiagnosticColumns = `package, path, line, col, kind, message`

// ScanDiagnostic reads a row selected with DiagnosticColumns.
func ScanDiagnostic(sc Scanner) (graph.Diagnostic, error) {
	var d graph.Diagnostic
	err := sc.Scan(&d.Package, &d.Path, &d.Line, &d.Col, &d.Kind, &d.Message)
	return d, err
}

// SymbolColumns are the columns of a symbol both schemas keep in the
// symbols table (alias s), in the order AppendSymbolFields scans them;
// each backend selects its row id, repository and unit columns before
// them.
const SymbolColumns = `s.name, coalesce(s.qname, s.name), s.kind, s.signature, s.doc, s.receiver, coalesce(s.parent, ''),
	s.exported, s.test_only, s.start_line, s.start_col, s.end_line, s.end_col, s.language`

// AppendSymbolFields appends to dest the scan destinations of s for its
// key, repository, package path, package name, module path and path, then
// for SymbolColumns, with the kind's code read into kind.
func AppendSymbolFields(dest []any, s *graph.Symbol, kind any) []any {
	return append(dest, &s.Key, &s.Repository, &s.PackagePath, &s.PackageName, &s.ModulePath, &s.Path,
		&s.Name, &s.QualifiedName, kind, &s.Signature, &s.Doc, &s.Receiver, &s.Parent,
		&s.Exported, &s.TestOnly, &s.StartLine, &s.StartCol, &s.EndLine, &s.EndCol, &s.Language)
}

// ScanSymbols reads rows that select a backend's row id columns and then
// a symbol's (see AppendSymbolFields), with kind codes of type C; id
// appends the scan destinations of the row id to dest.
func ScanSymbols[ID any, C Code](rows Rows, id func(dest []any, id *ID) []any) ([]graph.Symbol, []ID, error) {
	var syms []graph.Symbol
	var ids []ID
	for rows.Next() {
		var s graph.Symbol
		var rid ID
		var kind C
		if err := rows.Scan(AppendSymbolFields(id(make([]any, 0, 23), &rid), &s, &kind)...); err != nil {
			return nil, nil, fmt.Errorf("reading symbols: %w", err)
		}
		s.Kind = Kind(kind)
		syms = append(syms, s)
		ids = append(ids, rid)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("reading symbols: %w", err)
	}
	return syms, ids, nil
}

// OneSymbol returns the first of syms, the answer of a lookup by key (or
// err, when the lookup failed); none is an error wrapping
// graph.ErrNotFound.
func OneSymbol(syms []graph.Symbol, err error, key string) (graph.Symbol, error) {
	if err != nil {
		return graph.Symbol{}, err
	}
	if len(syms) == 0 {
		return graph.Symbol{}, fmt.Errorf("symbol %s: %w", key, graph.ErrNotFound)
	}
	return syms[0], nil
}

// ScanRepository reads a repository row (id, name, root, vcs_head)
// selected by its root; noRows is the driver's error for no row, which
// becomes graph.ErrNotFound.
func ScanRepository(row Scanner, root string, noRows error) (graph.Repository, error) {
	var r graph.Repository
	err := row.Scan(&r.ID, &r.Name, &r.Root, &r.VCSHead)
	if err != nil && errors.Is(err, noRows) {
		return r, fmt.Errorf("repository at %s: %w", root, graph.ErrNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("looking up repository: %w", err)
	}
	return r, nil
}

// SearchColumns returns the words a symbol is found by in full-text
// search, one string per field (name, doc, signature, body, path), as
// both stores index them: identifiers split into words
// (graph.SearchWords) so that "parse config" finds ParseConfig, the
// name's abbreviations expanded, and a member's own name counted twice.
func SearchColumns(sym *graph.Symbol) (name, doc, sig, body, path string) {
	words := func(s string) string { return string(graph.AppendSearchText(nil, s)) }
	name = strings.Join(graph.ExpandAbbreviations(graph.SearchWords(sym.QualifiedName)), " ")
	if sym.Name != sym.QualifiedName {
		name += " " + words(sym.Name) // the member's own name counts twice
	}
	return name, words(sym.Doc), words(sym.Signature), words(sym.Text),
		words(sym.Path + " " + sym.PackagePath)
}

// ErrWriterDone is returned by a store's SnapshotWriter used after
// Publish or Abort.
var ErrWriterDone = errors.New("snapshot writer already published or aborted")

// RepositoryRoot checks and normalises the arguments of EnsureRepository:
// the root cleaned, and an empty name defaulted to the root's base name.
func RepositoryRoot(root, name string) (string, string, error) {
	if root == "" {
		return "", "", errors.New("ensuring repository: empty root")
	}
	root = filepath.Clean(root)
	if name == "" {
		name = filepath.Base(root)
	}
	return root, name, nil
}

// TestRun scans a row of package, dir, name, kind, status, binary hash,
// message and duration in milliseconds, in that order, then into more.
func TestRun(row Scanner, more ...any) (graph.TestRun, error) {
	var r graph.TestRun
	var ms int64
	err := row.Scan(append([]any{&r.Package, &r.Dir, &r.Name, &r.Kind, &r.Status, &r.Binary, &r.Message, &ms}, more...)...)
	r.Duration = time.Duration(ms) * time.Millisecond
	return r, err
}
