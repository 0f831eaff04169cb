package doctor

import "runtime"

// guards says which of the platform's guards hold: how the go commands
// and the other programs Sextant starts are kept from outliving it
// (internal/proc, internal/proctree).
func guards(checks []Check) []Check {
	goGuard := Check{Feature: "guard", Name: "go command guard"}
	switch runtime.GOOS {
	case "linux":
		var haveGo, shim bool
		for _, c := range checks {
			haveGo = haveGo || c.Name == "go" && c.Path != ""
			shim = shim || c.Name == "go shim" && c.Status == OK
		}
		switch {
		case haveGo && shim:
			goGuard.Status, goGuard.Detail = OK, "active: every go command runs under a guard that dies with Sextant (parent-death signal), even when it is killed"
		case !haveGo:
			goGuard.Status, goGuard.Detail = Note, "inactive: no go command to guard"
		default:
			goGuard.Status, goGuard.Detail = Note, "inactive: the go shim's directory is refused (above); go commands may outlive a killed Sextant"
		}
	default:
		goGuard.Status, goGuard.Detail = Note, "not on "+runtime.GOOS+": go commands are stopped when a load is cancelled, not when Sextant is killed"
	}
	tree := Check{Feature: "guard", Name: "process trees", Status: OK}
	switch runtime.GOOS {
	case "linux":
		tree.Detail = "active: language servers and SCIP indexers in a process group with a parent-death signal and a reaper; memory cap RLIMIT_AS"
	case "darwin":
		tree.Detail = "active: language servers and SCIP indexers in a process group led by a reaper; memory cap by resident size polled every 500 ms"
	case "windows":
		tree.Detail = "active: language servers and SCIP indexers in a job object killed on close; memory cap by the job's limit"
	default:
		tree.Status, tree.Detail = Note, "none on "+runtime.GOOS
	}
	return []Check{goGuard, tree}
}
