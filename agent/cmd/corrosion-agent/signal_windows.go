package main

import "os"

// hostShutdownSignals: none on Windows, where the service control
// manager's preshutdown notification has this role (service_windows.go).
var hostShutdownSignals []os.Signal
