package store

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// ExplainDB turns a failure to reach or use the database into what it
// means, keeping the cause for errors.Is and errors.As: a database that
// does not exist, a refused login, a server that cannot be reached (not
// pgx's attempt by attempt lines, one with TLS and one without). Other
// errors pass unchanged.
func ExplainDB(err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "3D000": // invalid_catalog_name
			return &explained{fmt.Sprintf("%s: create it (createdb), or point EVF_DATABASE_URL or DATABASE_URL at another", pg.Message), err}
		case "28P01", "28000": // invalid_password, invalid_authorization_specification
			return &explained{fmt.Sprintf("Postgres refused the login: %s (check the user and password of EVF_DATABASE_URL or DATABASE_URL)", pg.Message), err}
		}
		return err
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) && ce.Config != nil {
		return &explained{fmt.Sprintf("cannot reach Postgres at %s:%d: %v (is it running, and is EVF_DATABASE_URL or DATABASE_URL right?)", ce.Config.Host, ce.Config.Port, rootCause(ce)), err}
	}
	return err
}

// explained is an error said in other words, with its cause underneath.
type explained struct {
	msg   string
	cause error
}

func (e *explained) Error() string { return e.msg }
func (e *explained) Unwrap() error { return e.cause }

// rootCause is the innermost error under err, following the last of
// joined errors (pgx's connection attempts, the last one's cause).
func rootCause(err error) error {
	for {
		var next error
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			if errs := u.Unwrap(); len(errs) > 0 {
				next = errs[len(errs)-1]
			}
		case interface{ Unwrap() error }:
			next = u.Unwrap()
		}
		if next == nil {
			return err
		}
		err = next
	}
}
