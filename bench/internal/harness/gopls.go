package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// FindGopls returns the gopls binary a harness compares with: flagged
// when given, else gopls on PATH, else $(go env GOPATH)/bin/gopls.
func FindGopls(flagged string) (string, error) {
	if flagged != "" {
		return flagged, nil
	}
	if p, err := exec.LookPath("gopls"); err == nil {
		return p, nil
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			p := filepath.Join(dir, "bin", "gopls")
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("gopls is not installed: GOFLAGS= go install golang.org/x/tools/gopls@v0.23.0")
}
