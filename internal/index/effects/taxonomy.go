// Package effects infers what a function may do when it is called: touch
// the filesystem or the network, start processes or goroutines, read the
// clock, write package variables, panic, exit, ... (the Taxonomy, also
// written down in docs/effects.md).
//
// It works in two steps, both at index time:
//
//  1. Direct effects. A Collector is handed every function the call graph
//     builds SSA for (internal/index/callgraph Options.Visit) and reads the
//     effects written in its own body: go statements, channel operations
//     and select, panic, writes to package-level variables, unsafe.Pointer
//     conversions, cgo calls, and the calls of standard-library functions
//     whose effect depends on the io.Writer or io.Reader they are given
//     (fmt.Fprintf, io.Copy, ...; see Collector). The calls of every other
//     function outside the repository are direct causes too: their effects
//     come from Table, matched against the callee names of the call edges
//     in Compute.
//  2. Transitive effects. Compute propagates the direct effects backwards
//     over the snapshot's call edges: along exact edges an effect stays
//     certain, through a candidate edge (an interface or function-value
//     call resolved by VTA or CHA) it becomes possible. Each record keeps
//     the first step of a shortest witness path (graph.EffectRecord.Next).
//     A function that reaches an unresolved dynamic call is open; a
//     function analysed with neither effects nor an open call is pure.
package effects

import "github.com/sextant-dev/sextant/internal/graph"

// Info describes one effect: its name and the sentence the tools return.
type Info struct {
	Effect   graph.Effect
	Sentence string
}

// Taxonomy is the closed list of effects, in graph.AllEffects order,
// followed by the two row markers open and pure. docs/effects.md repeats
// it (TestTaxonomyDocumented keeps the two alike).
var Taxonomy = []Info{
	{graph.EffectFS, "Reads or writes the filesystem: files, directories, links, permissions."},
	{graph.EffectNet, "Uses the network: dials, listens, resolves names or sends HTTP requests."},
	{graph.EffectExec, "Starts or signals other processes."},
	{graph.EffectEnv, "Reads or changes the process environment: variables, working directory, arguments, user and host identity."},
	{graph.EffectExit, "May end the process (os.Exit, log.Fatal)."},
	{graph.EffectPanic, "May panic: an explicit panic, or a call known to panic on bad input (regexp.MustCompile)."},
	{graph.EffectSpawn, "Starts goroutines."},
	{graph.EffectChan, "Sends, receives or closes on channels, or selects."},
	{graph.EffectSync, "Takes locks, waits on wait groups or conditions, or uses atomic operations."},
	{graph.EffectTime, "Reads the clock, sleeps, or uses timers and tickers."},
	{graph.EffectRand, "Draws random numbers."},
	{graph.EffectStdio, "Reads standard input or writes standard output or error, logging included."},
	{graph.EffectGlobal, "Writes package-level variables (shared mutable state)."},
	{graph.EffectUnsafe, "Uses package unsafe to convert pointers or build slices and strings from raw memory."},
	{graph.EffectCgo, "Calls C code through cgo."},
	{graph.EffectReflect, "Uses reflection to inspect or call values of types not known statically."},
	{graph.EffectDB, "Queries or changes a database through database/sql."},
	{graph.EffectOpen, "Reaches a call whose callee is unknown (a dynamic call nothing resolves, reflection, an io.Writer of unknown type handed to the standard library): it may do more than listed."},
	{graph.EffectPure, "Analysed: no effect and no unknown call."},
}

var sentences = func() map[graph.Effect]string {
	m := make(map[graph.Effect]string, len(Taxonomy))
	for _, in := range Taxonomy {
		m[in.Effect] = in.Sentence
	}
	return m
}()

// Sentence returns the sentence that explains e, or "" for an unknown
// effect.
func Sentence(e graph.Effect) string { return sentences[e] }

// Valid reports whether e is an effect of the taxonomy (open and pure
// excluded).
func Valid(e graph.Effect) bool {
	_, ok := sentences[e]
	return ok && e != graph.EffectOpen && e != graph.EffectPure
}
