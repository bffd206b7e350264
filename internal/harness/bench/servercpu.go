package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// serverCPU reads the CPU time of a Postgres server on this machine from
// /proc: its postmaster's own and reaped children's (exited backends), and
// its live backends'. The verify section splits a job's machine time into
// the worker's and the database's with it.
type serverCPU struct {
	postmaster int // 0: the server is not on this machine (or not visible)
}

// clockTicks is USER_HZ, the unit of /proc's CPU times (100 on Linux).
const clockTicks = 100

// findServerCPU finds the postmaster of pool's server as the parent of one
// of its backends; a server elsewhere gives a serverCPU that reads nothing.
func findServerCPU(ctx context.Context, pool *pgxpool.Pool) serverCPU {
	var pid int
	if err := pool.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		return serverCPU{}
	}
	st, err := readStat(pid)
	if err != nil {
		return serverCPU{}
	}
	if _, err := readStat(st.ppid); err != nil {
		return serverCPU{}
	}
	return serverCPU{postmaster: st.ppid}
}

// seconds is the server's CPU time so far; ok is false when it cannot be read.
func (s serverCPU) seconds() (sec float64, ok bool) {
	if s.postmaster == 0 {
		return 0, false
	}
	pm, err := readStat(s.postmaster)
	if err != nil {
		return 0, false
	}
	ticks := pm.utime + pm.stime + pm.cutime + pm.cstime
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		return 0, false
	}
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == s.postmaster {
			continue
		}
		if st, err := readStat(pid); err == nil && st.ppid == s.postmaster {
			ticks += st.utime + st.stime
		}
	}
	return float64(ticks) / clockTicks, true
}

// procStat is what serverCPU reads of /proc/<pid>/stat.
type procStat struct {
	ppid                         int
	utime, stime, cutime, cstime int64
}

// readStat parses /proc/<pid>/stat (proc(5)): the fields after the
// parenthesised command name, which may itself hold spaces.
func readStat(pid int) (procStat, error) {
	var st procStat
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return st, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return st, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 15 {
		return st, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	if st.ppid, err = strconv.Atoi(f[1]); err != nil {
		return st, fmt.Errorf("/proc/%d/stat: ppid: %w", pid, err)
	}
	for k, dst := range []*int64{&st.utime, &st.stime, &st.cutime, &st.cstime} {
		if *dst, err = strconv.ParseInt(f[11+k], 10, 64); err != nil {
			return st, fmt.Errorf("/proc/%d/stat: field %d: %w", pid, 14+k, err)
		}
	}
	return st, nil
}
