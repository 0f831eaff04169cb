package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestArchivesReproducible: an archive's bytes depend on its contents
// alone: the same files given in another order, at another time, give
// the same bytes, with entries sorted, dated at the commit and owned by
// root, the binary executable.
func TestArchivesReproducible(t *testing.T) {
	mtime := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	files := []file{{"sextant", 0o755, []byte("binary")}, {"README.md", 0o644, []byte("# Sextant\n")}}
	reversed := []file{files[1], files[0]}
	dir := t.TempDir()
	for _, w := range []struct {
		ext   string
		write func(string, string, []file, time.Time) error
	}{{".tar.gz", writeTarGz}, {".zip", writeZip}} {
		a, b := filepath.Join(dir, "a"+w.ext), filepath.Join(dir, "b"+w.ext)
		if err := w.write(a, "sextant_1.2.3_x", files, mtime); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1100 * time.Millisecond) // a clock read anywhere would show
		if err := w.write(b, "sextant_1.2.3_x", reversed, mtime); err != nil {
			t.Fatal(err)
		}
		da, _ := os.ReadFile(a)
		db, _ := os.ReadFile(b)
		if !bytes.Equal(da, db) {
			t.Errorf("%s: two writes of the same files differ", w.ext)
		}
		entries := archiveEntries(t, a)
		want := []entry{{"sextant_1.2.3_x/README.md", 0o644, time.Time{}}, {"sextant_1.2.3_x/sextant", 0o755, time.Time{}}}
		if w.ext == ".tar.gz" {
			want = append([]entry{{"sextant_1.2.3_x/", 0o755, time.Time{}}}, want...)
		}
		for i := range entries {
			if !entries[i].mtime.Equal(mtime) {
				t.Errorf("%s: %s dated %v, want %v", w.ext, entries[i].name, entries[i].mtime, mtime)
			}
			entries[i].mtime = time.Time{}
		}
		if got := fmt.Sprint(entries); got != fmt.Sprint(want) {
			t.Errorf("%s holds %v, want %v", w.ext, got, want)
		}
	}
}

type entry struct {
	name  string
	mode  os.FileMode
	mtime time.Time
}

func (e entry) String() string { return fmt.Sprintf("%s %o", e.name, e.mode) }

// archiveEntries lists a .tar.gz's or .zip's entries in order.
func archiveEntries(t *testing.T, path string) []entry {
	t.Helper()
	var out []entry
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			out = append(out, entry{f.Name, f.Mode().Perm(), f.Modified.UTC()})
		}
		return out
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: %s owned by %d/%d %q/%q, want 0/0", path, h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		out = append(out, entry{h.Name, os.FileMode(h.Mode).Perm(), h.ModTime.UTC()})
	}
}

// releaseDirEnv names the output of `go run ./release` that
// TestRelease checks (CI runs the release, then this test).
const releaseDirEnv = "SEXTANT_RELEASE_DIR"

// TestRelease checks a release: every archive against the checksums
// file; each platform package's binary is the right format for its
// platform (ELF, Mach-O, PE, and the architecture); and this machine's
// package, installed from tarballs `npm pack` made into a clean
// directory with no registry, runs through `npx sextant-mcp`: --version
// prints the release's version and an MCP initialize answers with it.
func TestRelease(t *testing.T) {
	dir := os.Getenv(releaseDirEnv)
	if dir == "" {
		t.Skipf("%s is not set: run `go run ./release -out dist` and set it to dist (as .ci/run does) to check a release", releaseDirEnv)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	var main struct {
		Version              string
		OptionalDependencies map[string]string
	}
	readJSON(t, filepath.Join(dir, "npm", npmName, "package.json"), &main)
	v := main.Version
	// The targets the release was made for, which in CI must be all.
	var targets []string
	for _, tg := range Targets {
		if goos, goarch, _ := strings.Cut(tg, "/"); main.OptionalDependencies[platformPackage(goos, goarch)] != "" {
			targets = append(targets, tg)
		}
	}
	if len(targets) != len(Targets) {
		msg := fmt.Sprintf("the release in %s is for %v, not every target %v", dir, targets, Targets)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Log("only part of the release is checked: " + msg)
	}

	t.Run("checksums", func(t *testing.T) {
		f, err := os.Open(filepath.Join(dir, "sextant_"+v+"_checksums.txt"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var names []string
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			sum, name, ok := strings.Cut(sc.Text(), "  ")
			if !ok {
				t.Fatalf("checksums line %q is not HASH  NAME", sc.Text())
			}
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != sum {
				t.Errorf("%s: sha256 %x, checksums file says %s", name, got, sum)
			}
			names = append(names, name)
		}
		want := []string{}
		for _, tg := range targets {
			goos, goarch, _ := strings.Cut(tg, "/")
			ext := ".tar.gz"
			if goos == "windows" {
				ext = ".zip"
			}
			want = append(want, fmt.Sprintf("sextant_%s_%s_%s%s", v, goos, goarch, ext))
		}
		slices.Sort(want)
		if !slices.Equal(names, want) {
			t.Errorf("checksums list %v, want %v", names, want)
		}
	})

	t.Run("binaries", func(t *testing.T) {
		for _, tg := range targets {
			goos, goarch, _ := strings.Cut(tg, "/")
			pkg := platformPackage(goos, goarch)
			if main.OptionalDependencies[pkg] != v {
				t.Errorf("%s's optionalDependencies give %s %q, want %q", npmName, pkg, main.OptionalDependencies[pkg], v)
			}
			var meta struct {
				Name, Version string
				OS, CPU       []string
			}
			readJSON(t, filepath.Join(dir, "npm", pkg, "package.json"), &meta)
			npmOS, cpu := npmPlatform(goos, goarch)
			if meta.Name != pkg || meta.Version != v || !slices.Equal(meta.OS, []string{npmOS}) || !slices.Equal(meta.CPU, []string{cpu}) {
				t.Errorf("%s/package.json: %+v, want name %s version %s os [%s] cpu [%s]", pkg, meta, pkg, v, npmOS, cpu)
			}
			bin := filepath.Join(dir, "npm", pkg, "bin", exeName(goos))
			if err := checkBinary(bin, goos, goarch); err != nil {
				t.Errorf("%s: %v", pkg, err)
			}
		}
	})

	t.Run("npx", func(t *testing.T) {
		if _, err := exec.LookPath("npm"); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("npm is not on PATH")
			}
			t.Skip("SKIPPED LOUDLY: npm is not on PATH: the npm package was NOT tested")
		}
		host := platformPackage(runtime.GOOS, runtime.GOARCH)
		packs := t.TempDir()
		for _, pkg := range []string{npmName, host} {
			npm(t, packs, "pack", "--pack-destination", packs, filepath.Join(dir, "npm", pkg))
		}
		tarballs, _ := filepath.Glob(filepath.Join(packs, "*.tgz"))
		if len(tarballs) != 2 {
			t.Fatalf("npm pack made %v, want two tarballs", tarballs)
		}
		clean := t.TempDir()
		if err := os.WriteFile(filepath.Join(clean, "package.json"), []byte(`{"private": true}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		// No registry: offline, with an empty cache, so only the
		// tarballs can satisfy the install; the other platforms'
		// optional packages are skipped.
		npm(t, clean, append([]string{"install", "--offline", "--no-audit", "--no-fund", "--cache", filepath.Join(clean, ".npm-cache")}, tarballs...)...)
		out := npx(t, clean, "--version")
		if want := "sextant " + v + " ("; !strings.HasPrefix(out, want) {
			t.Errorf("npx sextant-mcp --version printed %q, want it to start %q", out, want)
		}

		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npx", "--offline", npmName, "serve", t.TempDir())
		cmd.Dir = clean
		cmd.Env = append(os.Environ(), "SEXTANT_DB="+filepath.Join(t.TempDir(), "sextant.db"), "npm_config_cache="+filepath.Join(clean, ".npm-cache"))
		client := mcp.NewClient(&mcp.Implementation{Name: "release-test", Version: "0"}, nil)
		session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("initialize through npx sextant-mcp serve: %v", err)
		}
		info := session.InitializeResult().ServerInfo
		if err := session.Close(); err != nil {
			t.Logf("closing: %v", err)
		}
		if info.Name != "sextant" || info.Version != v {
			t.Errorf("initialize server info %+v, want sextant %s", info, v)
		}
	})
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func npm(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("npm", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func npx(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("npx", append([]string{"--offline", npmName}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(dir, ".npm-cache"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("npx %s %s: %v", npmName, strings.Join(args, " "), err)
	}
	return string(out)
}

// checkBinary says whether the file at path is an executable of goos
// and goarch, read with the standard library's readers of each format.
func checkBinary(path, goos, goarch string) error {
	switch goos {
	case "linux":
		f, err := elf.Open(path)
		if err != nil {
			return fmt.Errorf("not ELF: %w", err)
		}
		defer f.Close()
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[goarch]
		if f.Machine != want || f.Class != elf.ELFCLASS64 || f.Type != elf.ET_EXEC {
			return fmt.Errorf("ELF %v %v %v, want %v ELFCLASS64 ET_EXEC", f.Machine, f.Class, f.Type, want)
		}
	case "darwin":
		f, err := macho.Open(path)
		if err != nil {
			return fmt.Errorf("not Mach-O: %w", err)
		}
		defer f.Close()
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[goarch]
		if f.Cpu != want || f.Type != macho.TypeExec {
			return fmt.Errorf("Mach-O %v %v, want %v executable", f.Cpu, f.Type, want)
		}
	case "windows":
		f, err := pe.Open(path)
		if err != nil {
			return fmt.Errorf("not PE: %w", err)
		}
		defer f.Close()
		want := map[string]uint16{"amd64": pe.IMAGE_FILE_MACHINE_AMD64, "arm64": pe.IMAGE_FILE_MACHINE_ARM64}[goarch]
		if f.Machine != want || f.Characteristics&pe.IMAGE_FILE_EXECUTABLE_IMAGE == 0 {
			return fmt.Errorf("PE machine %#x characteristics %#x, want machine %#x, an executable image", f.Machine, f.Characteristics, want)
		}
	default:
		return fmt.Errorf("no check for %s", goos)
	}
	return nil
}
