// Package jobs is evidencefleet's public job contract, and only that: the
// job kinds and queues (declared once, in kinds.go), one args type per kind
// with Kind, InsertOpts and Validate, and ParseArgs. Other services import it
// to insert jobs with River's Go client; it depends on the standard library,
// River's insert API and internal/ident (URL and DOI normal forms) only — no
// crawler, parser, metrics or database driver. The workers live in
// internal/workers.
//
// Args are decoded strictly: an unknown field, a wrong type or a missing
// required field is a permanent error. The worker cancels such a job with a
// message naming the field (visible in river_job.errors); it is never retried.
package jobs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/errs"
)

// ArgsError is a permanent problem with a job's args.
type ArgsError struct {
	Kind  string // job kind
	Field string // JSON path of the offending field, "" when not field-specific
	Msg   string
}

// Unwrap makes every ArgsError an errs.ErrBadInput: a permanent problem that
// the workers cancel on and the CLI reports as a usage error.
func (e *ArgsError) Unwrap() error { return errs.ErrBadInput }

// Failure is the error table's row of args the contract refuses.
func (e *ArgsError) Failure() errs.Failure { return errs.BadArgs }

// Error names the field and the problem; what it repeats of the input (a
// field name, a value) is clipped, since River stores it with the job.
func (e *ArgsError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("invalid %s args: %s", e.Kind, clip(e.Msg, 4*maxEchoBytes))
	}
	return fmt.Sprintf("invalid %s args: field %q: %s", e.Kind, clip(e.Field, maxEchoBytes), clip(e.Msg, 4*maxEchoBytes))
}

func argsErr(kind, field, format string, a ...any) *ArgsError {
	return &ArgsError{Kind: kind, Field: field, Msg: fmt.Sprintf(format, a...)}
}

// decodeStrict decodes one JSON object into v, rejecting unknown fields
// (matched exactly: encoding/json alone would accept "Task_ID" for
// "task_id"), non-objects, trailing data and text that is not valid UTF-8
// or holds a lone surrogate escape (CheckJSONText), and turns
// encoding/json's errors into ArgsErrors naming the field by its JSON path.
func decodeStrict(kind string, data []byte, v any) error {
	if len(data) > MaxArgsBytes {
		return argsErr(kind, "", "args of %d bytes, more than the %d allowed", len(data), MaxArgsBytes)
	}
	// encoding/json would decode either as U+FFFD, and the job would go on
	// with text it was never given.
	var textErr *TextError
	if errors.As(CheckJSONText(data), &textErr) {
		return argsErr(kind, textErr.Field, "%v", textErr.Err)
	}
	if err := checkKeys(kind, "", data, reflect.TypeOf(v).Elem()); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonArgsError(kind, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return argsErr(kind, "", "trailing data after the JSON object")
	}
	return nil
}

// checkKeys verifies that raw is a JSON object whose keys are exactly the
// JSON names of t's fields, recursing into struct-typed fields.
func checkKeys(kind, path string, raw []byte, t reflect.Type) error {
	var obj map[string]json.RawMessage
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return argsErr(kind, path, "empty args")
	}
	if trimmed[0] != '{' {
		if path != "" {
			return argsErr(kind, path, "expected an object, got %s", jsonKindOf(trimmed[0]))
		}
		return argsErr(kind, "", "expected a JSON object, got %s", jsonKindOf(trimmed[0]))
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(&obj); err != nil {
		return jsonArgsError(kind, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return argsErr(kind, path, "trailing data after the JSON object")
	}
	fields := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		fields[name] = f.Type
	}
	for key, val := range obj {
		ft, ok := fields[key]
		if !ok {
			return argsErr(kind, joinPath(path, key), "unknown field")
		}
		if ft.Kind() == reflect.Struct && !bytes.Equal(bytes.TrimSpace(val), []byte("null")) {
			if err := checkKeys(kind, joinPath(path, key), val, ft); err != nil {
				return err
			}
		}
	}
	return nil
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func jsonKindOf(first byte) string {
	switch first {
	case '[':
		return "array"
	case '"':
		return "string"
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean"
	default:
		return "number"
	}
}

func jsonArgsError(kind string, err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return argsErr(kind, "", "expected a JSON object, got %s", typeErr.Value)
		}
		return argsErr(kind, field, "expected %s, got %s", jsonTypeName(typeErr.Type.Kind().String()), typeErr.Value)
	case errors.As(err, &syntaxErr):
		return argsErr(kind, "", "malformed JSON at byte %d: %v", syntaxErr.Offset, err)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return argsErr(kind, name, "unknown field")
	case errors.Is(err, io.EOF):
		return argsErr(kind, "", "empty args")
	default:
		return argsErr(kind, "", "%v", err)
	}
}

func jsonTypeName(goKind string) string {
	switch goKind {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	default:
		return goKind
	}
}

// requirePositive checks a required id field.
func requirePositive(kind, field string, v int64) error {
	if v <= 0 {
		if v == 0 {
			return argsErr(kind, field, "required (a positive integer)")
		}
		return argsErr(kind, field, "must be a positive integer, got %d", v)
	}
	return nil
}
