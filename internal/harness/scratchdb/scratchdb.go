// Package scratchdb creates throwaway databases on a Postgres server, for the
// evaluation and benchmark harnesses that must not touch existing data.
package scratchdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Create creates an empty database named prefix + a random suffix on the
// server of base, and returns its URL and a function that drops it.
func Create(ctx context.Context, base, prefix string) (string, func() error, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", nil, fmt.Errorf("scratch database name: %w", err)
	}
	name := prefix + hex.EncodeToString(b[:])
	u, err := WithDatabase(base, name)
	if err != nil {
		return "", nil, err
	}
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", nil, fmt.Errorf("scratch database: connect: %w", err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("scratch database: create %s (use a role with CREATEDB, or run without a fresh database): %w", name, err)
	}
	drop := func() error {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(dctx, base)
		if err != nil {
			return fmt.Errorf("drop scratch database %s: %w", name, err)
		}
		defer c.Close(dctx)
		if _, err := c.Exec(dctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("drop scratch database %s: %w", name, err)
		}
		return nil
	}
	return u, drop, nil
}

// WithDatabase returns the connection string base with its database
// replaced by name (URL or keyword=value form).
func WithDatabase(base, name string) (string, error) {
	if strings.Contains(base, "://") {
		u, err := url.Parse(base)
		if err != nil {
			return "", fmt.Errorf("DATABASE_URL: %w", err)
		}
		u.Path = "/" + name
		u.RawPath = ""
		return u.String(), nil
	}
	if strings.TrimSpace(base) == "" {
		return "", errors.New("DATABASE_URL is empty")
	}
	return base + " dbname=" + name, nil
}

// WithParam returns the connection string dbURL with the parameter key set
// to value.
func WithParam(dbURL, key, value string) (string, error) {
	if !strings.Contains(dbURL, "://") {
		return dbURL + " " + key + "=" + value, nil
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", fmt.Errorf("DATABASE_URL: %w", err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String(), nil
}
