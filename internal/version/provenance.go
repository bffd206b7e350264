package version

import (
	"context"
	"os/exec"
	"strings"
	"time"
)

// Provenance says what produced a measured figure: the commit of the
// checkout it was measured in and when. `make eval` and `make bench` print
// it above their tables, and docs/ quote it with every figure.
type Provenance struct {
	Commit string    `json:"commit"` // short revision, "-dirty" when the work tree had changes
	At     time.Time `json:"measured_at"`
}

// Measured returns the provenance of a measurement starting now: the commit
// of the git checkout around the working directory (make runs at its root),
// or the binary's own version (String) outside a checkout.
func Measured(ctx context.Context) Provenance {
	return Provenance{Commit: checkoutCommit(ctx), At: time.Now().UTC()}
}

// String is "commit <c>, <date and time in UTC>".
func (p Provenance) String() string {
	return "commit " + p.Commit + ", " + p.At.Format("2006-01-02 15:04 UTC")
}

func checkoutCommit(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rev, err := exec.CommandContext(ctx, "git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return String()
	}
	commit := strings.TrimSpace(string(rev))
	// Untracked files do not change what was measured; modified tracked
	// files do.
	status, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output()
	if err == nil && len(strings.TrimSpace(string(status))) > 0 {
		commit += "-dirty"
	}
	return commit
}
