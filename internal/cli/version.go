package cli

import (
	"fmt"
	"runtime/debug"
)

// The version, commit and date of this build. A release stamps them
// (release/, with -ldflags "-X github.com/sextant-dev/sextant/internal/cli.version=1.2.3"
// and likewise commit and date); a binary built otherwise reads what the
// go command recorded (buildVersion): the module version for
// `go install ...@v1.2.3`, the commit for a build in a clone.
var version, commit, date string

// buildVersion returns this binary's version, commit and date: as
// stamped, else from the build information, else "devel".
func buildVersion() (v, c, d string) {
	v, c, d = version, commit, date
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && c == "":
				c = s.Value
			case s.Key == "vcs.time" && d == "":
				d = s.Value
			}
		}
	}
	if v == "" {
		v = "devel"
	}
	return v, c, d
}

// versionLine is what --version prints: the version, then the commit
// (12 digits) and the build date when known.
func versionLine() string {
	v, c, d := buildVersion()
	line := "sextant " + v
	if len(c) > 12 {
		c = c[:12]
	}
	switch {
	case c != "" && d != "":
		line += fmt.Sprintf(" (commit %s, built %s)", c, d)
	case c != "":
		line += fmt.Sprintf(" (commit %s)", c)
	case d != "":
		line += fmt.Sprintf(" (built %s)", d)
	}
	return line
}
