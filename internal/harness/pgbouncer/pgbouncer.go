// Package pgbouncer runs PgBouncer (Debian's pgbouncer package) in
// transaction pooling mode in front of a Postgres server, for the tests
// and the bench that check the fleet through a pooler: Start writes its
// configuration into a directory of its own and runs it as a child process.
package pgbouncer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// RequireEnv, set to 1, makes Need fail instead of skip where no pgbouncer
// is installed (CI installs it).
const RequireEnv = "EVF_REQUIRE_PGBOUNCER"

// Binary is the pgbouncer executable on PATH or in /usr/sbin, or "".
func Binary() string {
	if p, err := exec.LookPath("pgbouncer"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/pgbouncer"); err == nil {
		return "/usr/sbin/pgbouncer"
	}
	return ""
}

// Need skips t where pgbouncer is not installed, or fails it when
// EVF_REQUIRE_PGBOUNCER=1.
func Need(t testing.TB) {
	t.Helper()
	if Binary() != "" {
		return
	}
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("pgbouncer is not installed and %s=1 (apt-get install pgbouncer)", RequireEnv)
	}
	t.Skip("pgbouncer is not installed (apt-get install pgbouncer); " + RequireEnv + "=1 makes this a failure")
}

// Bouncer is a running PgBouncer.
type Bouncer struct {
	addr     string // host:port it listens on
	upstream *url.URL
	poolSize int
	dir      string
	cmd      *exec.Cmd
	done     chan struct{}
	waitErr  error
}

// Start runs PgBouncer in transaction mode in front of the server of
// upstream (a postgres:// URL), with at most poolSize server connections
// per database and user, and waits until it accepts connections. Run as
// root it switches to the user postgres (PgBouncer refuses to run as root).
func Start(ctx context.Context, upstream string, poolSize int) (*Bouncer, error) {
	bin := Binary()
	if bin == "" {
		return nil, errors.New("pgbouncer: not installed (apt-get install pgbouncer)")
	}
	up, err := url.Parse(upstream)
	if err != nil {
		return nil, fmt.Errorf("pgbouncer: upstream: %w", err)
	}
	host, port := up.Hostname(), up.Port()
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "5432"
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "evf-pgbouncer-")
	if err != nil {
		return nil, fmt.Errorf("pgbouncer: %w", err)
	}
	_ = os.Chmod(dir, 0o755)
	b := &Bouncer{addr: addr, upstream: up, poolSize: poolSize, dir: dir, done: make(chan struct{})}
	username := up.User.Username()
	password, _ := up.User.Password()
	_, listenPort, _ := net.SplitHostPort(addr)
	ini := strings.Join([]string{
		"[databases]",
		fmt.Sprintf("* = host=%s port=%s", host, port),
		"[pgbouncer]",
		"listen_addr = 127.0.0.1",
		"listen_port = " + listenPort,
		"unix_socket_dir =",
		"auth_type = trust",
		"auth_file = " + filepath.Join(dir, "userlist.txt"),
		"admin_users = " + username,
		"pool_mode = transaction",
		"default_pool_size = " + strconv.Itoa(poolSize),
		"max_client_conn = 5000",
		"logfile = " + filepath.Join(dir, "pgbouncer.log"),
		"",
	}, "\n")
	userlist := fmt.Sprintf("%q %q\n", username, password)
	for name, text := range map[string]string{"pgbouncer.ini": ini, "userlist.txt": userlist, "pgbouncer.log": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return nil, fmt.Errorf("pgbouncer: %w", err)
		}
	}
	args := []string{"-q", filepath.Join(dir, "pgbouncer.ini")}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("pgbouncer: running as root needs a user postgres to switch to: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		_ = os.Chown(filepath.Join(dir, "pgbouncer.log"), uid, -1)
		args = append([]string{"-u", "postgres"}, args...)
	}
	b.cmd = exec.Command(bin, args...)
	b.cmd.Dir = dir
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := b.cmd.Start(); err != nil {
		return nil, fmt.Errorf("pgbouncer: start: %w", err)
	}
	go func() { b.waitErr = b.cmd.Wait(); close(b.done) }()
	if err := b.waitReady(ctx); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// Pooled is the connection string of dbURL's database (on the bouncer's
// upstream server) through the bouncer, with the upstream's user.
func (b *Bouncer) Pooled(dbURL string) (string, error) {
	d, err := url.Parse(dbURL)
	if err != nil {
		return "", fmt.Errorf("pgbouncer: %w", err)
	}
	u := *b.upstream
	u.Host = b.addr
	u.Path = d.Path
	u.RawQuery = url.Values{"sslmode": {"disable"}}.Encode()
	return u.String(), nil
}

// BoundTimeouts sets the fleet's default statement, lock and
// idle-in-transaction timeouts on dbURL's database, as an operator sets
// them on the role: startup parameters do not pass a transaction pooler,
// and a worker behind one will not start while one is unbounded.
func BoundTimeouts(ctx context.Context, db interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}, dbURL string) error {
	u, err := url.Parse(dbURL)
	if err != nil {
		return fmt.Errorf("pgbouncer: %w", err)
	}
	name := pgx.Identifier{strings.TrimPrefix(u.Path, "/")}.Sanitize()
	for _, set := range []string{"statement_timeout = '5min'", "lock_timeout = '1min'", "idle_in_transaction_session_timeout = '5min'"} {
		if _, err := db.Exec(ctx, "ALTER DATABASE "+name+" SET "+set); err != nil {
			return fmt.Errorf("pgbouncer: %w", err)
		}
	}
	return nil
}

// Log is what PgBouncer has logged.
func (b *Bouncer) Log() string {
	data, _ := os.ReadFile(filepath.Join(b.dir, "pgbouncer.log"))
	return string(data)
}

// Close stops PgBouncer and removes its directory.
func (b *Bouncer) Close() {
	if b.cmd != nil && b.cmd.Process != nil {
		_ = b.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-b.done:
		case <-time.After(5 * time.Second):
			_ = b.cmd.Process.Kill()
			<-b.done
		}
	}
	_ = os.RemoveAll(b.dir)
}

func (b *Bouncer) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	for {
		c, err := net.DialTimeout("tcp", b.addr, time.Second)
		if err == nil {
			_ = c.Close()
			return nil
		}
		select {
		case <-b.done:
			return fmt.Errorf("pgbouncer: exited at start (%v): %s", b.waitErr, b.Log())
		case <-ctx.Done():
			return fmt.Errorf("pgbouncer: not listening on %s after 15s: %s", b.addr, b.Log())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("pgbouncer: find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
