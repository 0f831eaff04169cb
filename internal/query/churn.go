package query

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// churnCommits is how many of the latest commits recentChanges reads,
// and churnTimeout how long git may take to list them.
const (
	churnCommits = 500
	churnTimeout = 3 * time.Second
)

// recentChanges counts, per file (relative to root, forward slashes), the
// commits among the latest churnCommits of the git work tree at root that
// changed it, and returns how many commits it read. It runs git read-only
// and defensively: the repository's own configuration cannot start
// programs (no fsmonitor, external diff, signature check or pager), the
// system configuration is skipped, no prompt can wait for a person, and a
// deadline bounds it. Any failure (no git, not a work tree, the deadline)
// returns nothing: history is a hint, never needed for an answer.
func recentChanges(ctx context.Context, root string) (map[string]int, int) {
	ctx, cancel := context.WithTimeout(ctx, churnTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git",
		"-c", "core.fsmonitor=false", "-c", "log.showSignature=false", "-c", "core.pager=cat",
		"--no-pager", "log", "--no-ext-diff", "--no-textconv", "--relative", "--name-only",
		"--format=%x00", "-n", strconv.Itoa(churnCommits))
	cmd.Dir = root
	cmd.Env = gitEnv(os.Environ())
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		return nil, 0
	}
	counts := map[string]int{}
	commits := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "\x00":
			commits++
		case line != "":
			counts[line]++
		}
	}
	return counts, commits
}

// gitEnv is the environment git runs in: env without the variables that
// point git at another repository or configuration, with the system
// configuration off and prompts disabled.
func gitEnv(env []string) []string {
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GIT_") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
}
