// Command release builds Sextant's release from the checkout it runs in:
// the sextant binary for each supported platform, stamped with the
// version, commit and date; an archive per platform (tar.gz, zip for
// Windows) with a SHA-256 checksums file; and the npm packages that put
// the binary on a machine without Go: sextant-mcp, whose launcher runs
// the binary of one package per platform, chosen by npm through
// optionalDependencies and their os and cpu fields (as esbuild and biome
// ship theirs), with no download at install.
//
//	go run ./release [-version 1.2.3] [-out dist] [-targets linux/amd64,...]
//
// The output is reproducible: the same commit and toolchain give the
// same bytes. Binaries are built with -trimpath and no VCS stamp but the
// one given; archive entries are sorted, owned by uid 0, and dated at
// the commit's time (or $SOURCE_DATE_EPOCH). Nothing is downloaded
// beyond the Go modules the build needs; `npm pack` of each package
// directory makes the tarballs to publish.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Targets are the platforms Sextant supports, GOOS/GOARCH.
var Targets = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// npmName is the npm package whose launcher runs the binary; each
// platform's package is npmName-OS-CPU, in npm's words for them.
const npmName = "sextant-mcp"

// stampPkg is the package whose version, commit and date variables the
// linker sets.
const stampPkg = "github.com/sextant-dev/sextant/internal/cli"

// Build is what a release stamps into its binaries and names its files by.
type Build struct {
	Version string    // semantic version without a leading v: 1.2.3, 0.0.0-dev.g0123abcd
	Commit  string    // the full commit id
	Date    time.Time // the commit's time, UTC: the binaries' stamp and the archives' entries' mtime
}

func main() {
	out := flag.String("out", "dist", "directory to write the release into (emptied first)")
	ver := flag.String("version", "", "version to stamp, semantic, without v (default: the v* tag at HEAD, else 0.0.0-dev.gCOMMIT)")
	targets := flag.String("targets", strings.Join(Targets, ","), "comma-separated GOOS/GOARCH list")
	flag.Parse()
	if err := run(*out, *ver, strings.Split(*targets, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(out, ver string, targets []string) error {
	for _, t := range targets {
		if !slices.Contains(Targets, t) {
			return fmt.Errorf("unsupported target %q (supported: %s)", t, strings.Join(Targets, ", "))
		}
	}
	b, err := describe(ver)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	fmt.Printf("sextant %s, commit %s, %s\n", b.Version, b.Commit, b.Date.Format(time.RFC3339))
	var archives []string
	for _, t := range targets {
		goos, goarch, _ := strings.Cut(t, "/")
		bin := filepath.Join(out, "build", goos+"_"+goarch, exeName(goos))
		start := time.Now()
		if err := build(b, goos, goarch, bin); err != nil {
			return err
		}
		name := fmt.Sprintf("sextant_%s_%s_%s", b.Version, goos, goarch)
		files, err := archiveFiles(bin, goos)
		if err != nil {
			return err
		}
		archive := filepath.Join(out, name+".tar.gz")
		if goos == "windows" {
			archive = filepath.Join(out, name+".zip")
			err = writeZip(archive, name, files, b.Date)
		} else {
			err = writeTarGz(archive, name, files, b.Date)
		}
		if err != nil {
			return err
		}
		archives = append(archives, archive)
		if err := writePlatformPackage(filepath.Join(out, "npm"), b, goos, goarch, bin); err != nil {
			return err
		}
		fmt.Printf("%-14s %s (%.1fs)\n", t, filepath.Base(archive), time.Since(start).Seconds())
	}
	if err := writeChecksums(filepath.Join(out, fmt.Sprintf("sextant_%s_checksums.txt", b.Version)), archives); err != nil {
		return err
	}
	if err := writeMainPackage(filepath.Join(out, "npm", npmName), b, targets); err != nil {
		return err
	}
	return os.RemoveAll(filepath.Join(out, "build"))
}

// semver is the form npm accepts: MAJOR.MINOR.PATCH, a pre-release, no build.
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)

// describe reads the commit, its date and (unless given) the version
// from git.
func describe(ver string) (Build, error) {
	var b Build
	c, err := gitOut("rev-parse", "HEAD")
	if err != nil {
		return b, err
	}
	b.Commit = c
	secs := os.Getenv("SOURCE_DATE_EPOCH")
	if secs == "" {
		if secs, err = gitOut("log", "-1", "--format=%ct", "HEAD"); err != nil {
			return b, err
		}
	}
	n, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return b, fmt.Errorf("commit time %q: %w", secs, err)
	}
	b.Date = time.Unix(n, 0).UTC()
	if ver == "" {
		if tag, err := gitOut("describe", "--tags", "--exact-match", "--match", "v*", "HEAD"); err == nil {
			ver = strings.TrimPrefix(tag, "v")
		} else {
			ver = "0.0.0-dev.g" + b.Commit[:12]
		}
	}
	b.Version = strings.TrimPrefix(ver, "v")
	if !semver.MatchString(b.Version) {
		return b, fmt.Errorf("version %q is not MAJOR.MINOR.PATCH[-PRERELEASE], which npm requires", ver)
	}
	return b, nil
}

func gitOut(args ...string) (string, error) {
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(ee.Stderr))
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return strings.TrimSpace(string(out)), nil
}

func exeName(goos string) string {
	if goos == "windows" {
		return "sextant.exe"
	}
	return "sextant"
}

// build compiles cmd/sextant for goos/goarch into bin: pure Go,
// -trimpath, no VCS information but the stamp, symbols stripped.
func build(b Build, goos, goarch, bin string) error {
	ldflags := fmt.Sprintf("-s -w -X %[1]s.version=%[2]s -X %[1]s.commit=%[3]s -X %[1]s.date=%[4]s",
		stampPkg, b.Version, b.Commit, b.Date.Format(time.RFC3339))
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", bin, "./cmd/sextant")
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0", "GOFLAGS=-mod=readonly")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building %s/%s: %w", goos, goarch, err)
	}
	return nil
}

// file is one entry of an archive.
type file struct {
	name string // slash-separated, under the archive's top directory
	mode int64
	data []byte
}

// archiveFiles are what an archive holds: the binary and the README.
func archiveFiles(bin, goos string) ([]file, error) {
	exe, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		return nil, err
	}
	return []file{{exeName(goos), 0o755, exe}, {"README.md", 0o644, readme}}, nil
}

// sorted returns files by name, the order every archive lists them in.
func sorted(files []file) []file {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.name, b.name) })
	return files
}

// writeTarGz writes files under dir/ in a gzip'd tar: sorted, owned by
// root, dated mtime, with no gzip name or time, so the bytes depend on
// the contents alone.
func writeTarGz(path, dir string, files []file, mtime time.Time) error {
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	hdr := func(name string, mode int64, typ byte, size int64) *tar.Header {
		return &tar.Header{Name: name, Mode: mode, Typeflag: typ, Size: size, ModTime: mtime, Format: tar.FormatPAX}
	}
	if err := tw.WriteHeader(hdr(dir+"/", 0o755, tar.TypeDir, 0)); err != nil {
		return err
	}
	for _, f := range sorted(files) {
		if err := tw.WriteHeader(hdr(dir+"/"+f.name, f.mode, tar.TypeReg, int64(len(f.data)))); err != nil {
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// writeZip is writeTarGz's zip, for Windows.
func writeZip(path, dir string, files []file, mtime time.Time) error {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	for _, f := range sorted(files) {
		h := &zip.FileHeader{Name: dir + "/" + f.name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(os.FileMode(f.mode))
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := w.Write(f.data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// writeChecksums writes sha256sum's format: one "HASH  NAME" line per
// file, sorted by name (`sha256sum -c` checks it).
func writeChecksums(path string, files []string) error {
	var lines []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		lines = append(lines, hex.EncodeToString(sum[:])+"  "+filepath.Base(f))
	}
	slices.SortFunc(lines, func(a, b string) int { return strings.Compare(a[66:], b[66:]) })
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// npmPlatform returns npm's os and cpu names for goos and goarch.
func npmPlatform(goos, goarch string) (npmOS, cpu string) {
	npmOS, cpu = goos, goarch
	if goos == "windows" {
		npmOS = "win32"
	}
	if goarch == "amd64" {
		cpu = "x64"
	}
	return npmOS, cpu
}

// platformPackage is the npm package holding goos/goarch's binary.
func platformPackage(goos, goarch string) string {
	npmOS, cpu := npmPlatform(goos, goarch)
	return npmName + "-" + npmOS + "-" + cpu
}

const repository = "https://github.com/sextant-dev/sextant"

// writePlatformPackage writes the package of goos/goarch's binary into
// npmDir/NAME: its package.json names the os and cpu npm installs it on.
func writePlatformPackage(npmDir string, b Build, goos, goarch, bin string) error {
	name := platformPackage(goos, goarch)
	dir := filepath.Join(npmDir, name)
	npmOS, cpu := npmPlatform(goos, goarch)
	pkg := map[string]any{
		"name":            name,
		"version":         b.Version,
		"description":     fmt.Sprintf("The sextant binary for %s %s; install %s, which runs it.", npmOS, cpu, npmName),
		"repository":      map[string]string{"type": "git", "url": "git+" + repository + ".git"},
		"os":              []string{npmOS},
		"cpu":             []string{cpu},
		"files":           []string{"bin"},
		"preferUnplugged": true,
	}
	if err := writeJSON(filepath.Join(dir, "package.json"), pkg); err != nil {
		return err
	}
	readme := fmt.Sprintf("# %s\n\nThe `sextant` binary (%s) for %s on %s, version %s, commit %s. It is installed by\n[%s](https://www.npmjs.com/package/%s), which runs it; see %s.\n",
		name, goos+"/"+goarch, cpu, npmOS, b.Version, b.Commit, npmName, npmName, repository)
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644); err != nil {
		return err
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "bin", exeName(goos)), data, 0o755)
}

// writeMainPackage writes sextant-mcp: the launcher, and every
// platform's package as an optional dependency at this version.
func writeMainPackage(dir string, b Build, targets []string) error {
	deps := map[string]string{}
	platforms := map[string]string{}
	for _, t := range targets {
		goos, goarch, _ := strings.Cut(t, "/")
		npmOS, cpu := npmPlatform(goos, goarch)
		deps[platformPackage(goos, goarch)] = b.Version
		platforms[npmOS+" "+cpu] = platformPackage(goos, goarch)
	}
	pkg := map[string]any{
		"name":                 npmName,
		"version":              b.Version,
		"description":          "Sextant, compiler-accurate answers about Go, TypeScript and Python code for coding agents, as an MCP server: npx -y sextant-mcp serve DIR",
		"keywords":             []string{"mcp", "model-context-protocol", "go", "golang", "code-intelligence", "sextant"},
		"homepage":             repository,
		"repository":           map[string]string{"type": "git", "url": "git+" + repository + ".git"},
		"bin":                  map[string]string{npmName: "bin/sextant-mcp.js", "sextant": "bin/sextant-mcp.js"},
		"files":                []string{"bin"},
		"engines":              map[string]string{"node": ">=18"},
		"optionalDependencies": deps,
	}
	if err := writeJSON(filepath.Join(dir, "package.json"), pkg); err != nil {
		return err
	}
	table, err := json.MarshalIndent(platforms, "", "  ")
	if err != nil {
		return err
	}
	launcher := strings.Replace(launcherJS, "PLATFORMS", string(table), 1)
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "sextant-mcp.js"), []byte(launcher), 0o755); err != nil {
		return err
	}
	readme := strings.ReplaceAll(mainReadme, "VERSION", b.Version)
	return os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644)
}

func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // ">=18", not "\u003e=18"
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// launcherJS is sextant-mcp's bin: it finds the platform package npm
// installed and runs its binary with the same arguments and standard
// streams (an MCP client speaks to it over them), passing on the
// signals it gets and exiting as the binary exits.
const launcherJS = `#!/usr/bin/env node
// Runs the sextant binary of this platform, from the package npm chose
// for it among sextant-mcp's optionalDependencies by their os and cpu.
"use strict";
const { spawn } = require("child_process");
const path = require("path");

const platforms = PLATFORMS;
const key = process.platform + " " + process.arch;
const pkg = platforms[key];
if (!pkg) {
  console.error("sextant-mcp: no sextant binary for " + key + " (there is one for " +
    Object.keys(platforms).join(", ") + "); with Go: go install github.com/sextant-dev/sextant/cmd/sextant@latest");
  process.exit(1);
}
let bin;
try {
  bin = path.join(path.dirname(require.resolve(pkg + "/package.json")), "bin",
    process.platform === "win32" ? "sextant.exe" : "sextant");
} catch (e) {
  console.error("sextant-mcp: " + pkg + ", the package of the sextant binary for " + key +
    ", is not installed; npm leaves it out with --omit=optional or --no-optional: install sextant-mcp without that");
  process.exit(1);
}
const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
const signals = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const sig of signals) {
  process.on(sig, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(sig);
  });
}
child.on("error", (err) => {
  console.error("sextant-mcp: running " + bin + ": " + err.message);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    for (const sig of signals) process.removeAllListeners(sig);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
`

// mainReadme is sextant-mcp's README on npm.
const mainReadme = "# sextant-mcp\n\n" +
	"[Sextant](" + repository + ") gives coding agents compiler-accurate answers about Go code " +
	"(and TypeScript, JavaScript and Python through their SCIP indexers): declarations, references, callers, " +
	"implementations, effects, change impact, over MCP. This package installs the `sextant` binary (VERSION) " +
	"for your platform, with no download at install time.\n\n" +
	"```sh\nnpx -y sextant-mcp serve /path/to/repo       # an MCP server on stdio\nnpx -y sextant-mcp doctor /path/to/repo      # what this machine has and lacks\n```\n\n" +
	"Claude Code: `claude mcp add sextant -- npx -y sextant-mcp serve /path/to/repo`\n\n" +
	"Cursor (`.cursor/mcp.json`):\n\n```json\n{ \"mcpServers\": { \"sextant\": { \"command\": \"npx\", \"args\": [\"-y\", \"sextant-mcp\", \"serve\", \"/path/to/repo\"] } } }\n```\n\n" +
	"`npm install -g sextant-mcp` puts `sextant` (and `sextant-mcp`) on your PATH. Linux, macOS and Windows, " +
	"on x64 and arm64. Indexing Go code needs the go command; see the project's README.\n"
