#!/usr/bin/env bash
# The Windows stage (called from .ci/run): the Windows test binary of
# every package with tests, cross-compiled here and run under Wine
# (Debian's wine64, 8.0 in bookworm), three at a time. Everything Wine 8 lacks that Go 1.26 needs is supplied
# here, for this stage only:
#   - bcryptprimitives.dll (Go's runtime takes its random numbers from
#     ProcessPrng): a DLL whose one export forwards to advapi32's
#     SystemFunction036, linked with binutils-mingw-w64;
#   - FileDispositionInformationEx (os.RemoveAll, hence every t.TempDir):
#     an -overlay of internal/syscall/windows that takes the fallback Go
#     keeps for older Windows;
#   - a Windows go command for the tests that index (go/packages runs
#     `go list -compiled -export`, which compiles the standard library
#     and asks link for its version) and the tests that run go build,
#     go vet and go test -cover: go.exe, compile.exe, asm.exe, link.exe,
#     vet.exe and cover.exe cross-compiled from this GOROOT, in a GOROOT
#     of symlinks to its sources. (The released Windows toolchain, golang.org/toolchain
#     v0.0.1-go1.26.8.windows-amd64, is not served by the module proxy:
#     403, "not available".) Its build cache, in the prefix, is kept too.
# SEXTANT_WINE_DIR (default ~/.cache/sextant-wine) keeps the prefix and the
# tools between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
start=$SECONDS

if ! command -v wine >/dev/null || ! command -v x86_64-w64-mingw32-ld >/dev/null; then
	echo "== installing wine64 and binutils-mingw-w64-x86-64"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wine64 binutils-mingw-w64-x86-64 >/dev/null
fi
wine --version

work="${SEXTANT_WINE_DIR:-$HOME/.cache/sextant-wine}"
mkdir -p "$work"
export WINEPREFIX="$work/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
if [ ! -d "$WINEPREFIX/drive_c/windows/system32" ]; then
	echo "== a Wine prefix in $WINEPREFIX"
	wineboot -i >/dev/null 2>&1
	wineserver -w
fi

sys32="$WINEPREFIX/drive_c/windows/system32"
if [ ! -f "$sys32/bcryptprimitives.dll" ]; then
	echo "== bcryptprimitives.dll: ProcessPrng forwarded to advapi32.SystemFunction036"
	printf 'LIBRARY bcryptprimitives.dll\nEXPORTS\nProcessPrng = advapi32.SystemFunction036\n' >"$work/bcp.def"
	x86_64-w64-mingw32-as -o "$work/empty.o" </dev/null
	x86_64-w64-mingw32-ld --dll -e 0 -o "$sys32/bcryptprimitives.dll" "$work/bcp.def" "$work/empty.o"
fi

goroot="$(go env GOROOT)"
at="$goroot/src/internal/syscall/windows/at_windows.go"
sed 's/^var TestDeleteatFallback bool$/var TestDeleteatFallback = true/' "$at" >"$work/at_windows.go"
grep -q '^var TestDeleteatFallback = true$' "$work/at_windows.go" || { echo "windows.sh: $at changed; update the overlay"; exit 1; }
printf '{"Replace":{"%s":"%s"}}\n' "$at" "$work/at_windows.go" >"$work/overlay.json"

wingo="$work/goroot"
tools=(compile asm link vet cover)
version="$(go env GOVERSION) ${tools[*]}"
if [ "$(cat "$wingo/.built" 2>/dev/null)" != "$version" ]; then
	echo "== a Windows go command ($version) in $wingo"
	rm -rf "$wingo"
	mkdir -p "$wingo/bin" "$wingo/pkg/tool/windows_amd64"
	ln -s "$goroot/pkg/include" "$wingo/pkg/include"
	for f in src lib misc VERSION go.env; do
		[ -e "$goroot/$f" ] && ln -s "$goroot/$f" "$wingo/$f"
	done
	(cd "$goroot/src" && GOOS=windows GOARCH=amd64 go build -overlay="$work/overlay.json" -o "$wingo/bin/go.exe" cmd/go &&
		for tool in "${tools[@]}"; do
			GOOS=windows GOARCH=amd64 go build -o "$wingo/pkg/tool/windows_amd64/$tool.exe" "cmd/$tool" || exit
		done)
	echo "$version" >"$wingo/.built"
fi
winpath() { echo "Z:${1//\//\\}"; }
modcache="$(winpath "$(go env GOMODCACHE)")"

# Every package with tests for Windows runs under Wine; a test that
# needs a component the prefix lacks (git, gopls, a built sextant, a
# PostgreSQL URL) skips itself and says so. Skipped here, by name, only
# what Wine does otherwise than Windows; tests of a Unix mechanism are
# built only for unix (//go:build unix) and so are not in the Windows
# binaries at all.
mapfile -t packages < <(GOOS=windows GOARCH=amd64 go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.Dir}}{{end}}' ./...)
declare -A skip=(
	# Wine keeps no job memory limit; Windows does.
	[./internal/lsp]='^TestMemoryCap$'
	# The overlay test makes its fixture a git checkout; the Wine prefix
	# has no git for Windows.
	[./internal/cli]='^TestOverlay$'
)
# Run with -test.short here: packages whose heaviest cases check what
# does not depend on the platform, on a large corpus, and which
# `go test ./...` has just run in full natively. Their short mode drops
# only those cases; every test of paths, files, processes, stdio and
# signals still runs under Wine.
declare -A short=(
	# The end-to-end suite: TestImpactRecall (cobra's 280 tests, each run
	# alone with coverage, against get_impact: 90 s here) skips, and
	# TestContextBudgetOnCobra asks about one cobra function in ten
	# instead of all 587 at four budgets (some 4,000 calls: a minute here).
	[./e2e]=1
	# The query layer: its tests of ranking, call graphs, effects and the
	# order of answers skip (platformNeutral), each ten seconds of
	# indexing a fixture here; those of paths, files, processes and the
	# tools' output run.
	[./internal/query]=1
	# The indexer: a writer's failure is tried at two of its eight
	# methods, each a whole index of a fixture.
	[./internal/index]=1
)

# One go test -c for all: the builds share the work and both cores.
bin="$work/bin"
rm -rf "$bin"
mkdir -p "$bin"
t0=$SECONDS
GOOS=windows GOARCH=amd64 go test -overlay="$work/overlay.json" -c -o "$bin/" "${packages[@]}"
echo "== ${#packages[@]} test binaries built ($((SECONDS - t0)) s)"

# runpkg runs one package's binary as go test does: in the package's
# directory, with the go command of this platform first on the path. Its
# verdict goes to $bin/<name>.verdict, its output to $bin/<name>.log.
runpkg() {
	local dir=$1 rel=./${1#"$root"/} name exe t0=$SECONDS
	name="$(basename "$dir")"
	[ "$dir" = "$root" ] && rel=. name=sextant
	exe="$bin/$name.test.exe"
	# 25 minutes: on a slow machine (2026-12-05) internal/index and
	# internal/query, three binaries at a time, passed 15 minutes.
	local args=(-test.count=1 -test.timeout=25m)
	[ -n "${skip[$rel]:-}" ] && args+=(-test.skip "${skip[$rel]}")
	[ -n "${short[$rel]:-}" ] && args+=(-test.short)
	# The crash tests kill a child at random instants, 200 times each
	# natively; under Wine, where a child's go list takes seconds, five.
	# The go command shares this machine's module cache. Its build cache
	# is in the prefix, named the Windows way: a GOCACHE (or GOPATH, GOENV,
	# GOTMPDIR, GOBIN) set here for Linux is no Windows path, and the go
	# command refuses a cache that is not absolute. CI is unset: with
	# CI=true a test fails rather than skips when gopls, node or git is
	# missing, which the native run checks; the prefix has none of them.
	if (cd "$dir" && WINEPATH="$(winpath "$wingo/bin")" GOROOT="$(winpath "$wingo")" GOTOOLCHAIN=local \
		GOMODCACHE="$modcache" GOCACHE="$(winpath "$work/gocache")" \
		env -u GOPATH -u GOENV -u GOTMPDIR -u GOBIN -u CI \
		SEXTANT_CRASH_RUNS=5 SEXTANT_CRASH_SERVER_RUNS=1 \
		wine "$exe" "${args[@]}" >"$bin/$name.log" 2>&1); then
		echo "ok   $rel under Wine ($((SECONDS - t0)) s)" >"$bin/$name.verdict"
	else
		{
			echo "FAIL $rel under Wine ($((SECONDS - t0)) s):"
			grep -E -- '^(--- FAIL|FAIL|panic|\s+\S+_test\.go:[0-9]+:)' "$bin/$name.log" | head -40 || tail -40 "$bin/$name.log"
		} >"$bin/$name.verdict"
	fi
	cat "$bin/$name.verdict"
}

# Three at a time on two cores: Wine waits on its server more than it
# computes (internal/load: 18 s of wall time, 6 s of CPU in the test's
# processes and 5 s in wineserver). With three, the stage took 575 s here
# on 2026-12-01, 660 s with two. The slowest packages start first (with
# three: index 475 s, query 355 s, e2e 294 s, load 124 s, callgraph
# 94 s, the crash tests 79 s, the rest under 45 s), so the queues end
# together.
jobs=${SEXTANT_WINE_JOBS:-3}
ordered=()
for slow in e2e internal/index internal/query internal/load internal/index/callgraph . internal/store/postgres internal/mcpserver bench/cmd/soundness internal/index/effects; do
	for i in "${!packages[@]}"; do
		if [ "${packages[$i]}" = "$root/$slow" ] || { [ "$slow" = . ] && [ "${packages[$i]}" = "$root" ]; }; then
			ordered+=("${packages[$i]}")
			unset 'packages[i]'
		fi
	done
done
packages=("${ordered[@]}" "${packages[@]}")
for dir in "${packages[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
	runpkg "$dir" &
done
wait
wineserver -k || true
# A package that failed is run once more, alone: the go command under
# Wine now and then fails to load a fixture it loads the next time
# (2026-12-01: TestCallersReflection, TestSyntaxSwitch). A pass on the
# second run is reported as flaky, loudly, and the log of the first kept.
failed=()
for v in "$bin"/*.verdict; do
	read -r verdict pkg _ <"$v"
	[ "$verdict" = ok ] && continue
	name="$(basename "$v" .verdict)"
	dir="$root/${pkg#./}"
	[ "$pkg" = . ] && dir=$root
	cp "$bin/$name.log" "$bin/$name.first.log"
	echo "== $pkg failed under Wine; running it once more"
	runpkg "$dir"
	read -r verdict _ <"$v"
	if [ "$verdict" = ok ]; then
		echo "FLAKY $pkg under Wine: failed once, passed on the second run (first log: $bin/$name.first.log)"
	else
		failed+=("$pkg")
	fi
done
wineserver -k || true
echo "== Windows stage: $((SECONDS - start)) s"
[ ${#failed[@]} -eq 0 ] || { echo "failed under Wine: ${failed[*]}"; exit 1; }
