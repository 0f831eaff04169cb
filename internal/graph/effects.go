package graph

// Effect names one kind of thing a function may do when it is called. The
// set is closed and written down, with one sentence per effect, in
// docs/effects.md and internal/index/effects (Taxonomy). Two more names
// stand for whole rows: EffectOpen (the function reaches a call whose
// callee is unknown, so it may do more than its row lists) and EffectPure
// (the function was analysed and has no effect and no open call).
type Effect string

// The effects.
const (
	EffectFS      Effect = "fs"
	EffectNet     Effect = "net"
	EffectExec    Effect = "exec"
	EffectEnv     Effect = "env"
	EffectExit    Effect = "exit"
	EffectPanic   Effect = "panic"
	EffectSpawn   Effect = "spawn"
	EffectChan    Effect = "chan"
	EffectSync    Effect = "sync"
	EffectTime    Effect = "time"
	EffectRand    Effect = "rand"
	EffectStdio   Effect = "stdio"
	EffectGlobal  Effect = "global"
	EffectUnsafe  Effect = "unsafe"
	EffectCgo     Effect = "cgo"
	EffectReflect Effect = "reflect"
	EffectDB      Effect = "db"

	EffectOpen Effect = "open"
	EffectPure Effect = "pure"
)

// AllEffects lists the effects in the order tools present them (open and
// pure excluded).
var AllEffects = []Effect{EffectFS, EffectNet, EffectExec, EffectEnv, EffectExit, EffectPanic, EffectSpawn,
	EffectChan, EffectSync, EffectTime, EffectRand, EffectStdio, EffectGlobal, EffectUnsafe, EffectCgo,
	EffectReflect, EffectDB}

// EffectRecord is one stored line of a function's effect row: one effect
// (or open, or pure) of one function, with the first step of its
// witness.
//
// A function analysed at index time has one record per effect it may
// have, one EffectOpen record when it reaches an unresolved call, and a
// single EffectPure record when it has neither. A function with no record
// was not analysed (its package did not type-check, say).
//
// The witness is the shortest call path from Function to a direct cause
// (among paths of the record's certainty). Path, Line and Col are the
// first step: the call site in Function, or for a direct record the
// cause itself (the go statement, the call of os.ReadFile, ...). Next is
// the key of the callee the path continues in, whose record for the same
// effect has the next step; it is "" on a direct record. Following Next
// always ends at a direct record.
type EffectRecord struct {
	Function string // stable key of the function (or package-level variable whose initialiser calls)
	Effect   Effect
	// Direct is set when the cause is in Function itself: its own
	// statement, or its call of a standard-library function the effect
	// table lists.
	Direct bool
	// Certain is set when the path uses only exact (static) call edges
	// and the cause is certain; otherwise the effect is possible: some
	// step goes through a candidate of an interface or function-value
	// call, or the table marks the cause as possible.
	Certain bool
	Path    string // repo-relative file of the first step
	Line    int
	Col     int
	Next    string // stable key of the next function on the witness path, "" on a direct record
	Callee  string // on a direct record caused by a call outside the graph, its name, e.g. "os.ReadFile"
	Detail  string // on a direct record, what the cause is, e.g. "go statement"
}
