package server

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"net/url"

	"github.com/corrosion/corrosion/panel/httpx"
)

type badInputKey struct{}

// BadInput is the refusal of a request's query or form found by the
// server's input check, for a route with OwnBadInput (nil: the input is
// fine).
func BadInput(r *http.Request) error {
	err, _ := r.Context().Value(badInputKey{}).(error)
	return err
}

// checkInput is the one check of what handlers read as text: the path,
// every field of the query and of a url-encoded form body (read here, bounded by the
// route's MaxForm) must be httpx.ValidText. Multipart bodies are read by
// their handler (uploads, bounded by what the panel can send), which
// checks them with httpx.CheckMultipart as soon as it has parsed them.
func checkInput(w http.ResponseWriter, r *http.Request, rt httpx.Route) error {
	if !httpx.ValidText(r.URL.Path) {
		return httpx.Errorf(http.StatusBadRequest, "the address %s", httpx.NotText)
	}
	q, _ := url.ParseQuery(r.URL.RawQuery) // bad escapes are dropped, as r.URL.Query() does
	if err := httpx.CheckValues("the address", q); err != nil {
		return err
	}
	if r.Body == nil || r.Method == http.MethodGet || r.Method == http.MethodHead {
		return nil
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/x-www-form-urlencoded" {
		return nil
	}
	max := rt.MaxForm
	if max <= 0 {
		max = httpx.DefaultMaxForm
	}
	r.Body = http.MaxBytesReader(w, r.Body, max)
	if err := r.ParseForm(); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return httpx.Errorf(http.StatusRequestEntityTooLarge, "the form is larger than the %d bytes this page takes", max)
		}
		return httpx.Wrap(http.StatusBadRequest, "the form could not be read", err)
	}
	return httpx.CheckValues("the form", r.PostForm)
}

func withBadInput(r *http.Request, err error) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), badInputKey{}, err))
}
