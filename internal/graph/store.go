package graph

import (
	"context"
	"errors"
	"io"
)

// Store is where snapshots live. Writers build a snapshot with a
// SnapshotWriter and publish it atomically; readers pin one consistent view
// per request with Read. Implementations: internal/store/sqlite (embedded
// default) and internal/store/postgres (the shared graph), which pass
// internal/store/storetest, and internal/store/overlay, a local store
// layered over a shared one.
type Store interface {
	// EnsureRepository returns the repository whose absolute root is root,
	// creating it when absent. The name is preferred, not promised: when
	// another root already uses it, the store picks a distinct one (name~2,
	// name~3, ...) so names stay unique. An existing repository keeps its name.
	EnsureRepository(ctx context.Context, root, name string) (Repository, error)

	// BeginSnapshot starts a new snapshot of the repository. Nothing it
	// writes is visible to readers until Publish returns.
	BeginSnapshot(ctx context.Context, repo Repository, vcsHead string) (SnapshotWriter, error)

	// Read pins the current snapshot of every repository for one request.
	// The view does not change until Close, whatever is published meanwhile.
	Read(ctx context.Context) (Reader, error)

	Close() error
}

// SnapshotWriter receives the records of one snapshot. Publish makes it the
// repository's current snapshot in one transaction and collects snapshots
// that no reader can reach any more; Abort (or a crash at any instant)
// leaves the previous snapshot serving.
type SnapshotWriter interface {
	AddModules(ctx context.Context, mods []Module) error
	// AddPackage writes one package with its files, symbols and diagnostics.
	AddPackage(ctx context.Context, pkg Package, files []File, syms []Symbol, diags []Diagnostic) error
	// AddFiles writes files that belong to no loaded package (build-ignored
	// files, for instance).
	AddFiles(ctx context.Context, files []File) error
	// AddDiagnostics writes diagnostics that belong to no package (a broken
	// go.mod, a module that failed to load).
	AddDiagnostics(ctx context.Context, diags []Diagnostic) error
	// AddRefs, AddCallEdges and AddImplements write the cross-reference
	// records of the snapshot; they may be called any number of times.
	AddRefs(ctx context.Context, refs []Ref) error
	AddCallEdges(ctx context.Context, edges []CallEdge) error
	AddImplements(ctx context.Context, impls []Implements) error
	// AddEffects writes effect records (see EffectRecord); it may be
	// called any number of times. The records must be computed from the
	// call edges of the same snapshot, so that every witness step is one
	// of its edges.
	AddEffects(ctx context.Context, recs []EffectRecord) error
	Publish(ctx context.Context) (Snapshot, error)
	Abort() error
}

// Provenancer is an optional SnapshotWriter capability, of a store that
// keeps what made a snapshot (Snapshot.Build and Snapshot.Indexers). An
// amended snapshot keeps its base's unless it is set again.
type Provenancer interface {
	SetProvenance(build string, indexers []string)
}

// Stager is an optional SnapshotWriter capability, of a store that can
// publish a snapshot as an early stage of an index (see Snapshot.Stage):
// the indexer then publishes the symbols of a repository it has never
// indexed before its types are checked, and the complete snapshot after.
// A snapshot published as a stage may lack its search rows, which only
// the complete snapshot answers; a writer set to StageTypes and then
// carried on by StagePublisher writes them after the stage.
type Stager interface {
	SetStage(stage string)
}

// StagePublisher is an optional SnapshotWriter capability, of a store
// that can publish a snapshot part-written and go on writing it: the
// indexer publishes what a repository indexed for the first time has
// before its call graph is computed (stage StageTypes), then the call
// edges and effects. PublishStage makes what was written so far the
// repository's current snapshot, marked stage; the writer stays open, and
// its Publish then makes the whole current under a snapshot id of its
// own. Abort after PublishStage leaves the stage current.
type StagePublisher interface {
	PublishStage(ctx context.Context, stage string) (Snapshot, error)
}

// XRefFlusher is an optional SnapshotWriter capability, of a writer that
// keeps cross-references in memory until Publish (the SQLite one): it
// writes the references, call edges and implementations added so far into
// the snapshot now, so that an indexer can have them written while it
// computes the rest. The snapshot stays invisible until Publish, and its
// records are the same whether or when this is called. A writer without
// it writes its records at Publish.
type XRefFlusher interface {
	FlushXRefs(ctx context.Context) error
}

// QualifiedNamer is an optional capability of a Reader's Symbols: the qualified name of
// each symbol with one of keys (absent keys are left out), as
// SymbolsByKeys would give it, without reading the rest of each symbol.
// find_references names the declaration enclosing every use with it.
type QualifiedNamer interface {
	QualifiedNames(ctx context.Context, keys []string) (map[string]string, error)
}

// Amender is a Store that can publish a snapshot made of the current one
// with some packages replaced, at a cost that grows with the packages
// replaced rather than with the repository: the incremental refresh of a
// repository after an edit. internal/store/sqlite implements it; a Store
// that does not is always re-indexed whole.
type Amender interface {
	// BeginAmend starts a snapshot that is base, the repository's current
	// snapshot, with the packages of some directories replaced (see
	// AmendWriter). Publish fails with ErrBaseMoved, leaving the current
	// snapshot as it is, when another snapshot of the repository was
	// published after base.
	BeginAmend(ctx context.Context, repo Repository, base int64, vcsHead string) (AmendWriter, error)
}

// AmendWriter writes an amended snapshot. RemoveDirs comes first; the
// Add methods then add the new records of the directories removed, as a
// SnapshotWriter does (AddModules is not allowed: modules do not change
// in an amend). Publish makes it current in one transaction, marked
// with the directories replaced (Snapshot.Amended).
type AmendWriter interface {
	SnapshotWriter
	// RemoveDirs drops from the snapshot the packages whose directory is
	// one of dirs (repo-relative), with their Go files (manifests such as
	// go.mod stay), symbols and diagnostics, the references and call edges whose site is in one of
	// their files, and the effect rows of their functions. Records of
	// other packages that point into them stay: the caller amends only
	// when what the package declares did not change.
	RemoveDirs(ctx context.Context, dirs []string) error
}

// FileRemover is an optional AmendWriter capability: removing files of
// any language, where RemoveDirs removes Go packages. An edit of the
// files of a TypeScript or Python project re-imports that project's
// index alone: its files' records go with RemoveFiles, the new ones are
// added, and the Go packages and the other projects stay as they are.
type FileRemover interface {
	// RemoveFiles drops from the snapshot the files at paths
	// (repo-relative), with their symbols and diagnostics, the
	// references and call edges whose site is in one of them, the
	// implementation pairs either side of which is one of their
	// symbols, and the packages left without a file. It does not mark
	// the snapshot amended (Snapshot.Amended): nothing is carried over
	// that a whole index would restore.
	RemoveFiles(ctx context.Context, paths []string) error
}

// ErrBaseMoved is returned by AmendWriter.Publish when the repository's
// current snapshot is no longer the amend's base.
var ErrBaseMoved = errors.New("the snapshot to amend is no longer current")

// MatchMode says how FindSymbols matches a name.
type MatchMode string

// The match modes of find_symbol.
const (
	MatchExact     MatchMode = "exact"     // case-sensitive; a dotted name matches the qualified name
	MatchPrefix    MatchMode = "prefix"    // case-insensitive prefix of the name
	MatchSubstring MatchMode = "substring" // case-insensitive substring of the name
	MatchFuzzy     MatchMode = "fuzzy"     // camel-case humps, e.g. NewSrvMux finds NewServeMux
)

// SymbolQuery selects symbols by name for find_symbol.
type SymbolQuery struct {
	Name         string
	Mode         MatchMode
	Kinds        []Kind   // any of these; empty means all
	Repositories []string // names; empty means all
	PathPrefix   string   // repo-relative file path prefix
	Exported     *bool
	Offset       int
	Limit        int // 0 means no limit
	// Brief says the caller reads only Key, Repository, Path, Name,
	// QualifiedName, Kind, Signature, Exported, TestOnly and the line and
	// column range of each symbol: a store may leave the rest empty.
	Brief bool
}

// Lookup selects symbols by exact qualified name for get_symbol.
type Lookup struct {
	QualifiedName string
	PackagePath   string // exact import path, optional
	PackageName   string // exact package name, optional
	Repository    string // optional
	PathPrefix    string // repo-relative file path prefix, optional
}

// RefQuery selects references for find_references.
type RefQuery struct {
	Targets []string // stable keys; a plain use of any of them matches
	// Implicit are stable keys whose implicit uses match (see
	// Ref.Implicit); a key may be in both lists.
	Implicit     []string
	Kinds        []RefKind // any of these; empty means all
	PathPrefix   string    // repo-relative path prefix of the use
	IncludeTests bool      // include uses in _test.go files
	Offset       int
	Limit        int // 0 means no limit
}

// EdgeQuery selects call edges by caller or by callee (exactly one of the
// two lists is set).
type EdgeQuery struct {
	Callers  []string   // edges out of these functions
	Callees  []string   // edges into these functions
	Coverage []Coverage // any of these; empty means all
}

// TextQuery selects symbols by words for search_code. Words are
// lower-case words of a question (stop words already dropped); a symbol
// that matches any of them is a hit.
type TextQuery struct {
	Words        []string
	Repositories []string // names; empty means all
	Kinds        []Kind   // any of these; empty means all
	Limit        int      // 0 means the backend's default (100)
}

// TextHit is one symbol a TextQuery found. Score is its relevance (BM25
// or the backend's like), larger for better matches; scores compare only
// within one answer.
type TextHit struct {
	Symbol Symbol
	Score  float64
}

// Repositories lists the repositories of st with a published snapshot,
// ordered by name, from a reader opened and closed for it: for a caller
// that needs nothing else from the snapshot.
func Repositories(ctx context.Context, st Store) ([]RepositoryStatus, error) {
	r, err := st.Read(ctx)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Repositories(ctx)
}

// Reader is one request's pinned view of the store, by role: the
// repositories with their files and packages (Catalog), the symbols
// (Symbols), the cross-references (XRefs), the effect records (Effects)
// and full-text search (Search). A backend or a language frontend
// implements the roles it serves, each a small interface, and its Read
// puts them together; a consumer takes the role it needs. The methods of
// the roles are promoted, so a Reader answers r.Refs as r.XRefs.Refs.
// Methods return ErrNotFound (wrapped or not) when a single looked-up row
// does not exist. Close ends the pinned view; the roles are not used
// after it.
type Reader struct {
	Catalog
	Symbols
	XRefs
	Effects
	Search
	io.Closer
}

// Catalog is the repositories of a pinned view and what each holds
// besides symbols: its files, packages and diagnostics.
type Catalog interface {
	// Repositories lists every repository with a published snapshot,
	// ordered by name.
	Repositories(ctx context.Context) ([]RepositoryStatus, error)
	// Repository returns one repository by name.
	Repository(ctx context.Context, name string) (RepositoryStatus, error)

	File(ctx context.Context, repo, path string) (File, error)
	// Files returns the repository's files, ordered by path.
	Files(ctx context.Context, repo string) ([]File, error)
	Package(ctx context.Context, repo, importPath string) (Package, error)
	// Packages returns the repository's packages, ordered by import path.
	Packages(ctx context.Context, repo string) ([]Package, error)
	// Diagnostics returns up to limit diagnostics of the repository (0: all).
	Diagnostics(ctx context.Context, repo string, limit int) ([]Diagnostic, error)
}

// Symbols is the declarations of a pinned view: found by name, by key, by
// qualified name or by parent.
type Symbols interface {
	// FindSymbols returns one page of matches, ranked: exact name before
	// prefix before the rest, exported before unexported, non-test before
	// test, then shorter names, then by qualified name, repository, path
	// and line. The int is the total number of matches.
	FindSymbols(ctx context.Context, q SymbolQuery) ([]Symbol, int, error)
	SymbolByKey(ctx context.Context, key string) (Symbol, error)
	LookupSymbols(ctx context.Context, l Lookup) ([]Symbol, error)
	// Children returns the methods and fields whose Parent is parentKey,
	// in source order.
	Children(ctx context.Context, repo, parentKey string) ([]Symbol, error)
	// SymbolsByKeys returns the symbols with these keys that exist, in no
	// particular order.
	SymbolsByKeys(ctx context.Context, keys []string) ([]Symbol, error)
}

// XRefs is the cross-references of a pinned view: references, call edges
// and implementations, and what is counted of them.
type XRefs interface {
	// Refs returns one page of references ordered by path, line and
	// column, and the total number that match.
	Refs(ctx context.Context, q RefQuery) ([]Ref, int, error)
	// CallEdges returns the edges that match, ordered by caller or callee
	// key (whichever the query is by), then path, line and column.
	CallEdges(ctx context.Context, q EdgeQuery) ([]CallEdge, error)
	// UnresolvedCalls counts the unresolved dynamic call sites of a repository.
	UnresolvedCalls(ctx context.Context, repo string) (int, error)
	// UseCounts returns, for each symbol of repo's snapshot that a
	// non-test file of repo uses, how often it is used (see UseCount),
	// ordered by Target. A symbol no file uses has no row; uses from other
	// repositories are not counted. An unknown repository is an error
	// wrapping ErrNotFound.
	UseCounts(ctx context.Context, repo string) ([]UseCount, error)
	// Implementations returns the records whose Interface is iface (the types
	// that satisfy it) when byInterface, else those whose Type is typ (the
	// interfaces it satisfies).
	Implementations(ctx context.Context, key string, byInterface bool) ([]Implements, error)
}

// Effects is the effect records of a pinned view (see EffectRecord).
type Effects interface {
	// EffectRecords returns the effect records of these functions in
	// every pinned snapshot, ordered by function key, then effect in the
	// order of AllEffects (open, then pure, last). A function with no
	// record was not analysed. Duplicate and unknown keys are ignored.
	EffectRecords(ctx context.Context, keys []string) ([]EffectRecord, error)
}

// Search is the full-text search of a pinned view.
type Search interface {
	// SearchText ranks symbols by a full-text match of q.Words against
	// their identifiers split into words (SearchWords), doc comments,
	// signatures, Symbol.Text and file and package paths, where a match in
	// the name weighs most. Word forms are folded (retry matches retries).
	// Best first; ties by repository, path and line.
	SearchText(ctx context.Context, q TextQuery) ([]TextHit, error)
}
