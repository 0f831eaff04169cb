package doctor

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// checkDirs examines the directories Sextant keeps under the user cache
// directory, without creating any: sextant/ (the default database
// beside them), the type cache and the go shim. Each must be the user's
// alone, as filecache.PrivateDir requires, else Sextant refuses it.
func checkDirs(getenv func(string) string) []Check {
	cache, err := os.UserCacheDir()
	if err != nil {
		return []Check{{Feature: "cache", Name: "cache directory", Status: Broken, Detail: err.Error(),
			Fix: "set XDG_CACHE_HOME (or HOME) to a directory of yours", NeededBy: []string{"sextant"}}}
	}
	base := filepath.Join(cache, "sextant")
	types := filepath.Join(base, "types")
	typesNote := ""
	switch v := getenv("SEXTANT_TYPE_CACHE"); v {
	case "off":
		types, typesNote = "", "off (SEXTANT_TYPE_CACHE=off)"
	case "":
	default:
		types = v
	}
	out := []Check{
		dirCheck("cache directory", base, "the default database, the type cache and the go shim"),
	}
	if types != "" {
		out = append(out, dirCheck("type cache", types, "dependencies' types between loads"))
	} else {
		out = append(out, Check{Feature: "cache", Name: "type cache", Status: Note, Detail: typesNote})
	}
	return append(out, dirCheck("go shim", filepath.Join(base, "go-shim"), "the link that puts the guard before every go command"))
}

func dirCheck(name, dir, holds string) Check {
	c := Check{Feature: "cache", Name: name, Path: dir, NeededBy: []string{"sextant"}}
	fi, err := os.Stat(dir)
	if os.IsNotExist(err) {
		c.Status, c.Detail = OK, "not created yet: holds "+holds
		return c
	}
	if err != nil {
		c.Status, c.Detail = Broken, err.Error()
		return c
	}
	owner := ownerOf(fi)
	c.Detail = fmt.Sprintf("%s, mode %v, %s: holds %s", owner, fi.Mode().Perm(), humanBytes(dirSize(dir)), holds)
	if err := checkPrivate(dir); err != nil {
		c.Status = Refused
		c.Detail = fmt.Sprintf("%s (%s): Sextant will not use it", err, owner)
		c.Fix = privateFix(dir, err)
	} else {
		c.Status = OK
	}
	return c
}

// privateFix is the command that makes dir acceptable again: the mode
// for one others may write to, the owner (or removing it) for another
// user's.
func privateFix(dir string, err error) string {
	q := shellQuote(dir)
	if strings.Contains(err.Error(), "owned by") {
		return "sudo chown -R \"$(id -u)\" " + q + " && chmod 700 " + q + "  (or remove it: rm -rf " + q + ")"
	}
	if strings.Contains(err.Error(), "not a directory") {
		return "rm " + q
	}
	return "chmod 700 " + q
}

func shellQuote(s string) string {
	if strings.ContainsAny(s, " '\"$`\\") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

// dirSize is the bytes of the regular files under dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
