package proctree

import "time"

// Duration is a program's deadline or timeout as sextant.toml writes it,
// a Go duration string ("30s", "10m"); the language servers' and the
// SCIP indexers' sections both read it.
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	d.Duration = v
	return err
}
