package harness

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Binary is one of the sextant binaries a -binaries run measures: the
// name its figures are filed under (old, new) and its path.
type Binary struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// ParseBinaries reads a -binaries flag: NAME=PATH pairs separated by
// commas, at least two, with distinct names. The first is the baseline
// every ratio divides by.
func ParseBinaries(s string) ([]Binary, error) {
	var out []Binary
	for _, part := range strings.Split(s, ",") {
		name, path, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || name == "" || path == "" {
			return nil, fmt.Errorf("-binaries: %q is not NAME=PATH", part)
		}
		if slices.ContainsFunc(out, func(b Binary) bool { return b.Name == name }) {
			return nil, fmt.Errorf("-binaries: %q named twice", name)
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		if fi, err := os.Stat(abs); err != nil || fi.IsDir() {
			return nil, fmt.Errorf("-binaries: %s is not a file", path)
		}
		out = append(out, Binary{Name: name, Path: abs})
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("-binaries needs at least two NAME=PATH pairs")
	}
	return out, nil
}

// Alternate is the order of round i: xs as given on even rounds and
// reversed on odd ones (ABC, CBA, ABC, ...), so slow drift of the machine
// hits every contender alike.
func Alternate[T any](i int, xs []T) []T {
	out := slices.Clone(xs)
	if i%2 == 1 {
		slices.Reverse(out)
	}
	return out
}

// Spread is a figure measured once per round: the median of the rounds,
// the smallest and the largest.
type Spread struct {
	N      int       `json:"n"`
	Median float64   `json:"median"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	Rounds []float64 `json:"rounds"`
}

// SpreadOf summarises one value per round.
func SpreadOf(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	return Spread{N: len(xs), Median: Median(xs), Min: slices.Min(xs), Max: slices.Max(xs), Rounds: xs}
}

// Ratio is a/b, or 0 when b is 0.
func Ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// MedianUsage is the median of each figure over runs, taken figure by
// figure (so it need not be any one run).
func MedianUsage(runs []Usage) Usage {
	get := func(f func(Usage) int64) int64 {
		xs := make([]int64, len(runs))
		for i, u := range runs {
			xs[i] = f(u)
		}
		return Median(xs)
	}
	return Usage{
		Wall:           time.Duration(get(func(u Usage) int64 { return int64(u.Wall) })),
		UserCPU:        time.Duration(get(func(u Usage) int64 { return int64(u.UserCPU) })),
		SysCPU:         time.Duration(get(func(u Usage) int64 { return int64(u.SysCPU) })),
		MaxRSSKiB:      get(func(u Usage) int64 { return u.MaxRSSKiB }),
		SelfHWMKiB:     get(func(u Usage) int64 { return u.SelfHWMKiB }),
		TreePeakKiB:    get(func(u Usage) int64 { return u.TreePeakKiB }),
		Samples:        int(get(func(u Usage) int64 { return int64(u.Samples) })),
		MaxDescendants: int(get(func(u Usage) int64 { return int64(u.MaxDescendants) })),
	}
}

// RemoveDB removes a SQLite database and its WAL and shared-memory files.
func RemoveDB(path string) {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(path + suffix)
	}
}

// CopyDB copies a SQLite database with its write-ahead log, if any. A
// harness reads an index through a copy when an older binary of a
// comparison must still open the original: opening a store upgrades its
// schema.
func CopyDB(src, dst string) error {
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(src + suffix)
		if os.IsNotExist(err) && suffix != "" {
			continue
		}
		if err == nil {
			err = os.WriteFile(dst+suffix, data, 0o600)
		}
		if err != nil {
			return fmt.Errorf("copying an index: %w", err)
		}
	}
	return nil
}

// Tail is the last part of a command's output, for an error message.
func Tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return s
}

// Corpus is the corpus a run measured: a pinned module, or a directory.
type Corpus struct {
	Module string `json:"module"`
	Dir    string `json:"dir"`
}

// Header opens the result file of a run: when and how it was made, on
// which machine and corpus, and notes on how to read its figures.
type Header struct {
	Date    string   `json:"date"`
	Command string   `json:"command"`
	Machine Machine  `json:"machine"`
	Corpus  Corpus   `json:"corpus"`
	Notes   []string `json:"notes,omitempty"`
}

// Header starts the result of a run on corpus, made now.
func (f *Flags) Header(ctx context.Context, corpus Corpus) Header {
	return Header{Date: time.Now().UTC().Format(time.RFC3339), Command: f.CommandLine(), Machine: ReadMachine(ctx), Corpus: corpus}
}

// Comparison is what every -binaries run records besides its own runs:
// each figure of every binary after the first divided by the first's in
// the same round.
type Comparison struct {
	Header
	Binaries []Binary `json:"binaries"`
	Rounds   int      `json:"rounds"`
	// Ratios are, for each binary after the first, its figure over the
	// first binary's in the same round, by figure name.
	Ratios map[string]map[string]Spread `json:"ratios"`
}

// Divide fills c.Ratios from get, which reads one figure of one binary
// in one round.
func (c *Comparison) Divide(figures []string, get func(figure int, bin string, round int) float64) {
	c.Ratios = map[string]map[string]Spread{}
	for _, b := range c.Binaries[1:] {
		c.Ratios[b.Name] = map[string]Spread{}
		for f, name := range figures {
			xs := make([]float64, c.Rounds)
			for i := range xs {
				xs[i] = Ratio(get(f, b.Name, i), get(f, c.Binaries[0].Name, i))
			}
			c.Ratios[b.Name][name] = SpreadOf(xs)
		}
	}
}

// Print writes, for each binary after the first, the median, smallest
// and largest ratio of each figure to the first binary's.
func (c *Comparison) Print(w io.Writer, figures []string) {
	fmt.Fprintf(w, "\nSextant binaries compared on %s, %d alternated rounds\n", cmp.Or(c.Corpus.Module, c.Corpus.Dir), c.Rounds)
	fmt.Fprintf(w, "load average (1, 5, 15 min): %s at the start, %s at the end\n", c.Machine.LoadAvgStart, c.Machine.LoadAvgEnd)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, b := range c.Binaries[1:] {
		fmt.Fprintf(tw, "  figure\t%s / %s median\tmin\tmax\t\n", b.Name, c.Binaries[0].Name)
		for _, f := range figures {
			s := c.Ratios[b.Name][f]
			fmt.Fprintf(tw, "  %s\t%.3f\t%.3f\t%.3f\t\n", f, s.Median, s.Min, s.Max)
		}
	}
	tw.Flush()
}
