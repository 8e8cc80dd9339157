package dev

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/corrosion/corrosion/worldsrv/httpapi"
)

// worldsUpBudget is how long the banner's follow-up line waits for the
// worlds.
const worldsUpBudget = 3 * time.Minute

// watchWorlds prints one line once every world's /status reports its
// sidecar link up (or that they are not up yet after worldsUpBudget).
func watchWorlds(ctx context.Context, worlds []world, out io.Writer) {
	start := time.Now()
	client := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		if allUp(ctx, client, worlds) {
			var ids []string
			for _, w := range worlds {
				ids = append(ids, w.id())
			}
			fmt.Fprintf(out, "%s are up with their sidecars after %.1fs\n", strings.Join(ids, " and "), time.Since(start).Seconds())
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if time.Since(start) > worldsUpBudget {
			fmt.Fprintf(out, "the worlds are not up after %v; see the agent log\n", worldsUpBudget)
			return
		}
	}
}

func allUp(ctx context.Context, client *http.Client, worlds []world) bool {
	for _, w := range worlds {
		if ether, err := WorldEther(ctx, client, w.httpPort); err != nil || ether != httpapi.EtherUp {
			return false
		}
	}
	return true
}

// WorldEther returns the "ether" field of the world's /status on
// 127.0.0.1:port (the sidecar link state: httpapi.EtherUp when linked),
// read with the world's own type.
func WorldEther(ctx context.Context, client *http.Client, port int) (httpapi.EtherState, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/status", port), nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var st httpapi.Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return "", fmt.Errorf("world /status: %w", err)
	}
	return st.Ether, nil
}
