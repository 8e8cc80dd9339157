package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Request is any request on a cmd subject. Args keeps the whole message so
// a handler can decode its own fields.
type Request struct {
	Func string          `json:"func"`
	Args json.RawMessage `json:"-"`
}

// Request decoding errors. Their messages describe the JSON a person sent,
// never Go types.
var (
	ErrMalformed   = errors.New("malformed request")
	ErrMissingFunc = errors.New(`missing "func"`)
	ErrBadArgs     = errors.New("bad arguments")
)

// DecodeRequest parses a request and checks it names a func: a JSON object
// whose "func" is a non-empty string.
func DecodeRequest(data []byte) (Request, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return Request{}, fmt.Errorf(`%w: the request is empty (want a JSON object like {"func":"status"})`, ErrMalformed)
	}
	var fields map[string]json.RawMessage
	if kind := jsonKind(trimmed); kind != "an object" {
		if err := syntaxError(trimmed); err != nil {
			return Request{}, err
		}
		return Request{}, fmt.Errorf("%w: the request must be a JSON object, got %s", ErrMalformed, kind)
	}
	if err := json.Unmarshal(trimmed, &fields); err != nil {
		if serr := syntaxError(trimmed); serr != nil {
			return Request{}, serr
		}
		return Request{}, fmt.Errorf("%w: the request is not a valid JSON object", ErrMalformed)
	}
	raw, ok := fields["func"]
	if !ok || jsonKind(raw) == "null" {
		return Request{}, fmt.Errorf(`%w: the request names no func (want {"func":"<name>", ...})`, ErrMissingFunc)
	}
	var fn string
	if err := json.Unmarshal(raw, &fn); err != nil {
		return Request{}, fmt.Errorf(`%w: "func" must be a string, got %s`, ErrMalformed, jsonKind(raw))
	}
	if fn == "" {
		return Request{}, fmt.Errorf(`%w: "func" is empty`, ErrMissingFunc)
	}
	return Request{Func: fn, Args: data}, nil
}

// syntaxError describes where data stops being JSON; nil when it is valid.
func syntaxError(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		msg := strings.TrimPrefix(se.Error(), "json: ")
		return fmt.Errorf("%w: the request is not valid JSON: %s (at byte %d)", ErrMalformed, msg, se.Offset)
	}
	if err != nil {
		return fmt.Errorf("%w: the request is not valid JSON", ErrMalformed)
	}
	return nil
}

// jsonKind names the kind of the JSON value that data starts with, as a
// person would: "an object", "an array", "a string", "a number", "true",
// "false", "null".
func jsonKind(data []byte) string {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return "nothing"
	}
	switch c := data[0]; {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	case bytes.HasPrefix(data, []byte("true")):
		return "true"
	case bytes.HasPrefix(data, []byte("false")):
		return "false"
	case bytes.HasPrefix(data, []byte("null")):
		return "null"
	}
	return "something that is not JSON"
}

// Decode unmarshals the request's fields into v. A field of the wrong type
// is an ErrBadArgs whose message names the field and both JSON types.
func (r Request) Decode(v any) error {
	err := json.Unmarshal(r.Args, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("%w: %s", ErrBadArgs, describeTypeError(te))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%w: the request is not valid JSON (at byte %d)", ErrMalformed, se.Offset)
	}
	return err // a programming error (v is not a pointer): internal
}

// describeTypeError renders a type mismatch in JSON terms:
// `"lines" must be a whole number, got a string`.
func describeTypeError(te *json.UnmarshalTypeError) string {
	field := te.Field
	if field == "" {
		field = "the request"
	} else {
		field = fmt.Sprintf("%q", field)
	}
	got := te.Value
	switch {
	case strings.HasPrefix(got, "number "):
		got = strings.TrimPrefix(got, "number ")
	case got == "number", got == "string", got == "array", got == "object":
		got = article(got)
	case got == "bool":
		got = "a boolean"
	}
	return fmt.Sprintf("%s must be %s, got %s", field, jsonTypeOf(te.Type), got)
}

// jsonTypeOf names the JSON a Go type accepts.
func jsonTypeOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number in range"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative whole number in range"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another kind of value"
}

func article(noun string) string {
	if strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}
