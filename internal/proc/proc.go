// Package proc makes the go command that go/packages runs die with
// Sextant, however Sextant ends.
//
// go/packages starts `go list` itself, in a process group of its own, and
// kills that group when the load's context ends; nothing kills it when
// Sextant is killed outright (SIGKILL, the OOM killer) or exits before
// the cancellation has run, and the go command then runs on under PID 1,
// holding the repository open. GuardGo closes that gap where the kernel
// offers a parent-death signal (Linux): it puts a directory first on
// PATH whose `go` is the Sextant binary itself, and ShimMain, run first
// thing by that binary, turns such a process into a small guard: it asks
// the kernel for a signal when its parent dies, runs the real go command
// as its child, and when the signal comes kills its process group (the go
// command and every compiler or cgo it started) and itself. Elsewhere
// both are no-ops and the go command is stopped by the context only.
package proc

// The environment GuardGo sets for the shim: the real go command's path
// and the shim's directory (to take off PATH again for the real go).
const (
	RealGoEnv  = "SEXTANT_REAL_GO"
	ShimDirEnv = "SEXTANT_GO_SHIM_DIR"
)
