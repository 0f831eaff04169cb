package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sextant-dev/sextant/internal/doctor"
)

// runDoctor prints what this machine has and lacks for each feature, for
// the given roots (default: the working directory), and fails unless
// everything they need is there.
func runDoctor(ctx context.Context, e env, argv []string) error {
	fs := newFlagSet("doctor", e)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	dbPath := dbFlag(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: sextant doctor [--json] [--db PATH] [DIR...]\n\nSay what this machine has and lacks for each feature, with the command that installs or fixes each missing piece. Exit status 0 only when everything the DIRs (default: the working directory) need is there.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(argv); err != nil {
		return usageErr(err)
	}
	roots, err := argRoots(fs)
	if err != nil {
		return err
	}
	r := doctor.Run(ctx, doctor.Options{Roots: roots, Version: versionLine(), Database: dbName(e, *dbPath), Getenv: e.getenv})
	if *asJSON {
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, string(b))
	} else {
		r.WriteText(e.stdout)
	}
	if !r.OK {
		return reportedError{fmt.Errorf("doctor: needed pieces missing")}
	}
	return nil
}
