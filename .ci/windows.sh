#!/usr/bin/env bash
# The Windows stage (called from .ci/run): the Windows test binaries of the
# packages below, cross-compiled here and run under Wine (Debian's wine64,
# 8.0 in bookworm). Everything Wine 8 lacks that Go 1.26 needs is supplied
# here, for this stage only:
#   - bcryptprimitives.dll (Go's runtime takes its random numbers from
#     ProcessPrng): a DLL whose one export forwards to advapi32's
#     SystemFunction036, linked with binutils-mingw-w64;
#   - FileDispositionInformationEx (os.RemoveAll, hence every t.TempDir):
#     an -overlay of internal/syscall/windows that takes the fallback Go
#     keeps for older Windows;
#   - a Windows go command for the tests that index (go/packages runs
#     `go list -compiled`, which asks compile and asm for their versions):
#     go.exe, compile.exe and asm.exe cross-compiled from this GOROOT, in a
#     GOROOT of symlinks to its sources.
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
version="$(go env GOVERSION)"
if [ "$(cat "$wingo/.built" 2>/dev/null)" != "$version" ]; then
	echo "== a Windows go command ($version) in $wingo"
	rm -rf "$wingo"
	mkdir -p "$wingo/bin" "$wingo/pkg/tool/windows_amd64"
	ln -s "$goroot/pkg/include" "$wingo/pkg/include"
	for f in src lib misc VERSION go.env; do
		[ -e "$goroot/$f" ] && ln -s "$goroot/$f" "$wingo/$f"
	done
	(cd "$goroot/src" && GOOS=windows GOARCH=amd64 go build -overlay="$work/overlay.json" -o "$wingo/bin/go.exe" cmd/go &&
		GOOS=windows GOARCH=amd64 go build -o "$wingo/pkg/tool/windows_amd64/compile.exe" cmd/compile &&
		GOOS=windows GOARCH=amd64 go build -o "$wingo/pkg/tool/windows_amd64/asm.exe" cmd/asm)
	echo "$version" >"$wingo/.built"
fi
winpath() { echo "Z:${1//\//\\}"; }

# The packages run under Wine, and the tests each skips there. A test is
# skipped here only for what Wine lacks, not Windows; tests that need a
# Unix mechanism are built only for unix (//go:build unix) and so are not
# in the Windows binaries at all.
packages=(
	./internal/graph
	./internal/rootfs
	./internal/fswatch
	./internal/lsp
	./internal/store/sqlite
	./internal/query
	./internal/cli
)
declare -A skip=(
	# Wine keeps no job memory limit; Windows does.
	# Wine's pipes carry the 16 MiB stderr flood in some 100 s.
	[./internal/lsp]='^(TestMemoryCap|TestStderrFlood)$'
	# The overlay test makes its fixture a git checkout; the Wine prefix
	# has no git for Windows.
	[./internal/cli]='^TestOverlay$'
	# Not yet portable tests, not the store (2026-12-01, under Wine 8.0):
	# roots written as Unix paths (/src/fx), which Windows cleans to
	# \src\fx (the upgrade tests, storetest's EnsureRepository); a file
	# name with '?', which Windows forbids; databases still open when
	# t.TempDir removes them, which Windows refuses (TestAmend and four
	# more); TestWarmNames's name table not loaded in time, not yet
	# looked into; TestDropRepository's repositories are rooted at
	# Unix paths (/gone) too.
	[./internal/store/sqlite]='^(TestDropRepository|TestUpgradeEffects|TestUpgradeFromV1|TestUpgradeToSearch|TestPathWithSpecialCharacters|TestAmend|TestFlushXRefsSameRecords|TestQualifiedNamesBothWays|TestStmtCacheFullPool|TestStmtCacheSerialReader|TestWarmNames)$|^TestConformance$/^EnsureRepository$'
)

# internal/query runs its platform golden only: of its other tests,
# twelve still fail under Wine (2026-12-01: the call-graph, effects,
# SSA and check_file tests, whose fixtures compile the standard library
# with the Windows go command); to be made to pass before they join.
declare -A run=(
	[./internal/query]='^TestPlatform'
)

bin="$work/bin"
mkdir -p "$bin"
failed=()
for pkg in "${packages[@]}"; do
	exe="$bin/$(echo "${pkg#./}" | tr / _).test.exe"
	GOOS=windows GOARCH=amd64 go test -overlay="$work/overlay.json" -c -o "$exe" "$pkg"
	t0=$SECONDS
	args=(-test.count=1 -test.timeout=15m)
	[ -n "${skip[$pkg]:-}" ] && args+=(-test.skip "${skip[$pkg]}")
	[ -n "${run[$pkg]:-}" ] && args+=(-test.run "${run[$pkg]}")
	# As go test does: in the package's directory, with the go command of
	# this platform first on the path.
	if (cd "$pkg" && WINEPATH="$(winpath "$wingo/bin")" GOROOT="$(winpath "$wingo")" GOTOOLCHAIN=local \
		wine "$exe" "${args[@]}" >"$exe.log" 2>&1); then
		echo "ok   $pkg under Wine ($((SECONDS - t0)) s)"
	else
		echo "FAIL $pkg under Wine ($((SECONDS - t0)) s):"
		grep -E -- '^(--- FAIL|FAIL|panic|\s+\S+_test\.go:[0-9]+:)' "$exe.log" | head -40 || tail -40 "$exe.log"
		failed+=("$pkg")
	fi
done
wineserver -k || true
echo "== Windows stage: $((SECONDS - start)) s"
[ ${#failed[@]} -eq 0 ] || { echo "failed under Wine: ${failed[*]}"; exit 1; }
