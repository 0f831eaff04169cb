// Package harness holds what Sextant's benchmark commands (bench/cmd/*)
// share, so that each command's main keeps only what is its own:
//
//   - the flags they share, spelled and meant the same everywhere
//     (Flags: -module/-corpus, -work/-keep, -out, -sextant, -gopls,
//     -binaries, -runs, -seed, -sample, -max-load), each command giving
//     its own defaults;
//   - the set-up every run begins with (Flags.Run and Flags.Start: the
//     module root, the work directory, a corpus fetched with
//     `go mod download` or given), building sextant and bareload
//     (Flags.SextantBinary, Build), the header of a result file (Header)
//     and the result file itself, named by date and commit (WriteJSON,
//     ResultPath);
//   - measuring a child process (wall time, CPU, peak RSS of the process
//     and of its process tree), the index contenders side by side
//     (Contenders: bareload and `sextant index`), alternated rounds of
//     several sextant binaries (ParseBinaries, Alternate, Comparison);
//   - summarising latencies into percentiles, building a reproducible
//     query set from an index, and judging figures against targets
//     (Check).
//
// See bench/README.md for what each command measures and how to
// reproduce its figures.
package harness
