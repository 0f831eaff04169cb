package graph

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
)

// Kind is the kind of a symbol. The set is closed: ParseKind rejects
// anything else.
type Kind string

// The symbol kinds Sextant indexes.
const (
	KindPackage         Kind = "package"
	KindConst           Kind = "const"
	KindVar             Kind = "var"
	KindType            Kind = "type"
	KindInterface       Kind = "interface"
	KindFunc            Kind = "func"
	KindMethod          Kind = "method"
	KindField           Kind = "field"
	KindInterfaceMethod Kind = "interface_method"
)

// Kinds lists every symbol kind, in the order tools document them.
var Kinds = []Kind{KindPackage, KindConst, KindVar, KindType, KindInterface,
	KindFunc, KindMethod, KindField, KindInterfaceMethod}

// ParseKind returns the Kind named s, and false when s names none.
func ParseKind(s string) (Kind, bool) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, true
		}
	}
	return "", false
}

// SameKindFamily reports whether a declaration parsed as a may be the
// indexed symbol of kind b: the parser alone cannot tell a type whose
// underlying type is an interface declared elsewhere from any other, nor
// always a var from a const.
func SameKindFamily(a, b Kind) bool {
	typeLike := func(k Kind) bool { return k == KindType || k == KindInterface }
	valueLike := func(k Kind) bool { return k == KindVar || k == KindConst }
	return a == b || typeLike(a) && typeLike(b) || valueLike(a) && valueLike(b)
}

// IsFunction reports whether symbols of kind k have a body or a signature
// that can be called.
func (k Kind) IsFunction() bool {
	return k == KindFunc || k == KindMethod || k == KindInterfaceMethod
}

// Repository is one indexed tree: a directory holding one or more Go
// modules. Name is unique in a store; Root is its absolute directory.
type Repository struct {
	ID      int64
	Name    string
	Root    string
	VCSHead string // commit id when the root is in a git work tree, else ""
}

// Snapshot is one published, immutable state of a repository.
// IDs grow monotonically per store, so a newer snapshot has a larger ID.
type Snapshot struct {
	ID           int64
	RepositoryID int64
	CreatedAt    time.Time
	// Amended lists the package directories an amended snapshot (see
	// Amender) re-derived on their own from its base, empty for a
	// snapshot indexed whole. In an amended snapshot the records whose
	// truth depends on the whole program were carried over from the base:
	// the call edges of other packages that go through interfaces and
	// function values, and effect rows, may be out of date until the next
	// whole index.
	Amended []string
	// Stage is "" for a snapshot with every record, or the stage of an
	// index still running that published it early: StageSyntax holds
	// packages, files and symbols read from syntax alone, no references,
	// call edges, implementations or effects, and a store may leave out
	// its search rows (search_code waits for the complete snapshot);
	// StageTypes holds everything but the call edges and effects, which
	// need the call graph. A complete snapshot replaces it when the run
	// ends.
	Stage string
	// Build is the build configuration its Go packages were loaded with
	// (GOOS, GOARCH, build tags), and Indexers the indexers of its other
	// languages, one "language tool version" each: what made it, said by
	// the process that indexed it, which need not be the one reading it.
	// Empty when the writer did not say (a store that does not keep them,
	// a snapshot of an older schema).
	Build    string
	Indexers []string
	// Format is the IndexFormat of the build that indexed the snapshot
	// whole, kept by the snapshots amended from it; 0 for one published
	// before snapshots recorded it. A snapshot of another format holds
	// records this build would write differently (other stable keys,
	// say): it is stale whatever the disk holds, and only a whole index
	// replaces it, since an amend would mix the two.
	Format int
}

// IndexFormat is the format of the records this build's indexers write
// (see Snapshot.Format). It goes up with every change that makes them
// write, for the same source, records an older build's would not match:
// another stable key for a declaration, another meaning of a reference.
// 1: the stable keys of TypeScript and Python declarations name their
// package, and uses across the projects of a workspace are joined.
// TestIndexFormatGoKeys and TestIndexFormatKeys hold the format to the
// keys of fixtures: a change of keys fails them until it goes up.
const IndexFormat = 1

// OtherFormat says, when s holds records of another format than this
// build writes, which two ("records of format 0, this build's 1"); it is
// "" when they are the same.
func (s Snapshot) OtherFormat() string {
	if s.Format == IndexFormat {
		return ""
	}
	return fmt.Sprintf("records of format %d, this build's %d", s.Format, IndexFormat)
}

// The stages of a snapshot published early (see Snapshot.Stage), in the
// order an index publishes them.
const (
	StageSyntax = "syntax" // symbols from syntax alone
	StageTypes  = "types"  // everything but call edges and effects
)

// StageReached reports whether a snapshot of stage have holds what a
// snapshot of stage need holds: syntax < types < complete ("").
func StageReached(have, need string) bool {
	rank := func(s string) int {
		switch s {
		case StageSyntax:
			return 1
		case StageTypes:
			return 2
		case "":
			return 3
		}
		return 0
	}
	return rank(have) >= rank(need)
}

// PhaseBackground is the progress phase a refresh reports when what it
// has left to do is to run the indexers of other languages' projects
// (seconds to minutes) and amend the snapshot with their indexes: the
// snapshot serving meanwhile answers, marked stale by the files that
// changed, and a call waiting for the refresh need not wait longer.
const PhaseBackground = "background"

// RepositoryStatus is a repository with its current snapshot and counts,
// as list_repositories shows it.
type RepositoryStatus struct {
	Repository
	Snapshot    Snapshot
	Modules     []Module
	Packages    int
	Files       int
	Symbols     int
	Diagnostics int
}

// Module is a Go module found under a repository root.
type Module struct {
	Path      string // module path from go.mod
	Dir       string // repo-relative directory, "." for the root
	GoVersion string
}

// Package is one Go package of a snapshot. Test variants are folded into
// the package they test; an external test package (package foo_test) is a
// Package of its own whose Path ends in "_test".
type Package struct {
	Path       string // import path
	Name       string
	ModulePath string
	Dir        string // repo-relative directory
	Hash       string // hex SHA-256 over the package's file hashes, for incremental re-indexing
	TestOnly   bool   // an external test package
	Errors     int    // diagnostics recorded for it
	// API is a hash of everything the package declares that other
	// packages can depend on (see internal/index), for incremental
	// re-indexing; stores that do not amend (see Amender) may drop it.
	API string
}

// File is one source file of a snapshot. Hash and the stat fields let a
// later call decide whether the file on disk is still the one indexed.
type File struct {
	Path      string // repo-relative, forward slashes
	Package   string // import path of the package it belongs to; "" when none loaded it
	Hash      string // hex SHA-256 of the content
	Size      int64
	ModTimeNS int64
	Test      bool // a _test.go file
	Ignored   bool // excluded by build constraints for this platform; syntax only
}

// MaxText bounds a Symbol's Text, in bytes.
const MaxText = 4096

// Symbol is one declared name. Lines are 1-based; columns are 1-based and
// count Unicode characters. QualifiedName is Name for package-level
// declarations, Type.Method for methods, Type.Field for fields and
// Interface.Method for interface methods.
type Symbol struct {
	Key        string // stable key; see StableKey
	Repository string // repository name
	// Language is the language the symbol is declared in: "go",
	// "typescript", "javascript" or "python". "" is Go: the rows of stores
	// written before the other languages were indexed have none.
	Language      string
	PackagePath   string
	PackageName   string
	ModulePath    string
	Path          string // repo-relative file
	Name          string
	QualifiedName string
	Kind          Kind
	Signature     string
	Doc           string
	Receiver      string // receiver type as written, e.g. "*Server", for methods
	Parent        string // stable key of the enclosing type for methods and fields, else ""
	Exported      bool
	TestOnly      bool // declared in a _test.go file
	StartLine     int
	StartCol      int
	EndLine       int
	EndCol        int
	// Text is extra words for full-text search (search_code): the string
	// literals and comments inside a function's body, a value's literal
	// initialiser, at most MaxText bytes. The indexer fills it and writers
	// index it; readers do not return it.
	Text string
	// Layer says where the row came from when it was read through an
	// overlay of a local working copy on a shared graph
	// (internal/store/overlay): LayerShared or LayerLocal. Plain stores
	// leave it "".
	Layer Layer
}

// The languages of the graph. Go's symbols of older rows leave it "".
const (
	LanguageGo         = "go"
	LanguageTypeScript = "typescript"
	LanguageJavaScript = "javascript"
	LanguagePython     = "python"
)

// LanguageOf names the language a file is source of by its extension
// (case aside), "" for none of the graph's.
func LanguageOf(path string) string {
	ext := path[strings.LastIndexByte(path, '.')+1:]
	if !strings.Contains(path, ".") || strings.ContainsAny(ext, "/\\") {
		return ""
	}
	switch strings.ToLower(ext) {
	case "go":
		return LanguageGo
	case "ts", "tsx", "mts", "cts":
		return LanguageTypeScript
	case "js", "jsx", "mjs", "cjs":
		return LanguageJavaScript
	case "py", "pyi":
		return LanguagePython
	}
	return ""
}

// TestFile reports whether p is a test file by its language's
// conventions: go test's _test.go files; the files pytest collects by
// default (test_*.py, *_test.py); the files jest and vitest run by
// default (*.test.*, *.spec.*, any file under a __tests__ directory).
func TestFile(p string) bool {
	base := path.Base(p)
	switch LanguageOf(p) {
	case LanguageGo:
		return strings.HasSuffix(base, "_test.go")
	case LanguagePython:
		return PytestFile(p)
	case LanguageTypeScript, LanguageJavaScript:
		return strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") ||
			slices.Contains(strings.Split(path.Dir(p), "/"), "__tests__")
	}
	return false
}

// PytestFile reports whether p is a file pytest collects by default.
func PytestFile(p string) bool {
	base := path.Base(p)
	return strings.HasSuffix(base, ".py") && (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py"))
}

// notIndexedWords names each language whose indexer is not run as the
// diagnostic saying so does: TypeScript and JavaScript share one, and
// projects of JavaScript alone are named so. NotIndexedOf tries them in
// this order, the longer words first.
var notIndexedWords = []struct{ lang, words string }{
	{LanguageTypeScript, "TypeScript and JavaScript"},
	{LanguageJavaScript, "JavaScript"},
	{LanguagePython, "Python"},
}

// NotIndexedMessage is the message of the skipped diagnostic that says
// the projects (root-relative directories) of lang were found and not
// indexed, and why; NotIndexedOf reads it back.
func NotIndexedMessage(lang string, projects []string, why string) string {
	words := LanguageName(lang)
	for _, w := range notIndexedWords {
		if w.lang == lang {
			words = w.words
			break
		}
	}
	return words + " not indexed (" + strings.Join(projects, ", ") + "): " + why
}

// NotIndexedOf returns the language and the reason of a message of
// NotIndexedMessage in text (the message, or a line that places it
// first); ok is false for any other text.
func NotIndexedOf(text string) (lang, why string, ok bool) {
	for _, w := range notIndexedWords {
		if i := strings.Index(text, w.words+" not indexed ("); i >= 0 {
			if _, why, found := strings.Cut(text[i:], "): "); found {
				return w.lang, why, true
			}
		}
	}
	return "", "", false
}

// LanguageName is a language as a sentence names it.
func LanguageName(lang string) string {
	switch lang {
	case LanguageTypeScript:
		return "TypeScript"
	case LanguageJavaScript:
		return "JavaScript"
	case LanguagePython:
		return "Python"
	case LanguageGo, "":
		return "Go"
	}
	return lang
}

// Lang is the symbol's language, LanguageGo for a row that has none.
func (s Symbol) Lang() string {
	if s.Language == "" {
		return LanguageGo
	}
	return s.Language
}

// IsGo reports whether the symbol is Go's, which the tools that read Go's
// types, SSA and effects can describe.
func (s Symbol) IsGo() bool { return s.Lang() == LanguageGo }

// Diagnostic is a load, parse or type error recorded while indexing.
type Diagnostic struct {
	Package string // import path
	Path    string // repo-relative file, "" when the error has no position
	Line    int
	Col     int
	Kind    string // "list", "parse", "type", "unknown" or KindSkipped
	Message string
}

// KindSkipped is the kind of a diagnostic saying what an index left out
// on purpose and went on without: a module a go.work uses whose directory
// is missing, a file too large to check beyond its declarations. The
// index's summary and the repository's overview list them, so that an
// answer missing what they name is not taken for the whole truth.
const KindSkipped = "skipped"

// Skipped reports whether d says what the index left out (KindSkipped).
func (d Diagnostic) Skipped() bool { return d.Kind == KindSkipped }

// unavailablePrefix starts the message of an UnavailableModuleDiagnostic.
const unavailablePrefix = string(CodeIndexingFailed) + ": module "

// UnavailableModuleDiagnostic is the diagnostic saying that module, which
// the go.mod at path requires at line and col, could not be loaded (not
// in the module cache and not downloadable): a "list" diagnostic whose
// message starts with the code INDEXING_FAILED and the module's path,
// followed by detail. The packages that import it are indexed without
// its types.
func UnavailableModuleDiagnostic(path string, line, col int, module, detail string) Diagnostic {
	return Diagnostic{Path: path, Line: line, Col: col, Kind: "list", Message: unavailablePrefix + module + " " + detail}
}

// UnavailableModule reports whether d is an UnavailableModuleDiagnostic.
func (d Diagnostic) UnavailableModule() bool {
	return d.Kind == "list" && strings.HasPrefix(d.Message, unavailablePrefix)
}

// RefKind says how a reference uses its target.
type RefKind string

// The reference kinds of find_references.
const (
	RefCall   RefKind = "call"   // the target is called (or its method value is taken and called)
	RefRead   RefKind = "read"   // a value is read, or a function or method value is taken
	RefWrite  RefKind = "write"  // a variable or field is assigned, incremented or has its address taken for writing
	RefType   RefKind = "type"   // a type name used in a type expression, conversion or composite literal
	RefImport RefKind = "import" // a package named by an import declaration
	RefEmbed  RefKind = "embed"  // a type embedded in a struct or interface
	// RefOverride is the declaration of another method of a TypeScript or
	// JavaScript method's family: one it overrides or implements, or one
	// overriding or implementing it (or them). find_references makes it
	// from the implementation pairs; no index records it.
	RefOverride RefKind = "override"
)

// RefKinds lists every reference kind.
var RefKinds = []RefKind{RefCall, RefRead, RefWrite, RefType, RefImport, RefEmbed, RefOverride}

// Ref is one use of a symbol, resolved by the type checker. Line and Col
// are those of the identifier; Col counts characters.
type Ref struct {
	Target     string // stable key of the symbol used
	Path       string // repo-relative file
	Line       int
	Col        int
	EndCol     int
	Enclosing  string // stable key of the innermost enclosing declaration, "" at file level
	Kind       RefKind
	TestOnly   bool   // the use is in a _test.go file
	Repository string // the repository of the use (filled by readers; writers need not set it)
	Layer      Layer  // see Symbol.Layer
	// Implicit marks a use of a method declared outside the graph
	// (io.Writer.Write) recorded against Target, a method of the graph
	// that corresponds to it through interface satisfaction, as gopls
	// counts it. It counts for Target alone, not for the methods related
	// to Target in turn: a reader asks for it by RefQuery.Implicit, never
	// by RefQuery.Targets, so that a query of a method's references reads
	// only that method's own implicit uses.
	Implicit bool
}

// Coverage says how sure a call edge is.
type Coverage string

// The coverage classes of call edges.
const (
	CoverageExact        Coverage = "exact"         // a static call, resolved by the compiler
	CoverageCandidate    Coverage = "candidate"     // a call through an interface or function value, resolved by VTA or CHA
	CoverageUnresolved   Coverage = "unresolved"    // a dynamic call for which no candidate was found
	CoveragePackageLevel Coverage = "package_level" // a call from init or a package-level variable initialiser
)

// Via says how a call is made.
type Via string

// The ways a call is made.
const (
	ViaStatic    Via = "static"
	ViaInterface Via = "interface"
	ViaFuncValue Via = "func_value"
	ViaGo        Via = "go"
	ViaDefer     Via = "defer"
)

// CallEdge is one call site from a caller to a callee. Callee is a stable
// key when the callee is in the graph; otherwise CalleeName names it
// (e.g. "os.ReadFile") and Callee is "". An unresolved edge has neither.
type CallEdge struct {
	Caller     string // stable key of the calling function or method
	Callee     string
	CalleeName string // package path qualified name for callees outside the graph, e.g. "os.ReadFile"
	Path       string // call site file, repo-relative
	Line       int
	Col        int
	Coverage   Coverage
	Via        Via
	// Go and Defer mark calls made by go and defer statements; Via then
	// still says how the callee was resolved.
	Go    bool
	Defer bool
	// Repository is the repository of the call site (filled by readers;
	// writers need not set it). Layer: see Symbol.Layer.
	Repository string
	Layer      Layer
}

// Layer names where an overlay read a row from.
type Layer string

// The layers of an overlay: a row of the shared graph, or a row of the
// local working copy's index whose file differs from the shared snapshot
// (an edit that is not published).
const (
	LayerShared Layer = "shared"
	LayerLocal  Layer = "local"
)

// Implements records that a concrete type (Type) satisfies an interface
// (Interface), both in the graph. Pointer is true when only the pointer
// type *Type has the full method set.
type Implements struct {
	Type      string // stable key of the concrete named type
	Interface string // stable key of the interface
	Pointer   bool
}
