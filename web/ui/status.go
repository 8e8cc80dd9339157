package ui

import (
	"net/http"
	"strconv"
)

func statusText(code int) string { return strconv.Itoa(code) + " " + http.StatusText(code) }
