package fleetui_test

import (
	"net/http/httptest"
	"testing"

	"github.com/corrosion/corrosion/panel/fleetui"
)

func TestClientURL(t *testing.T) {
	cases := []struct {
		name, host, instance, game, want string
	}{
		{"world10 via a name with port", "panel.example:8090", "world10", "worldsrv", "http://panel.example:8080/client?world=1"},
		{"world11 via an address", "10.0.0.5", "world11", "worldsrv", "http://10.0.0.5:8081/client?world=2"},
		{"ipv6", "[::1]:8090", "w12", "worldsrv", "http://[::1]:8082/client?world=3"},
		{"not a world", "h:1", "ether10", "ether", ""},
		{"no digits", "h:1", "world", "worldsrv", ""},
		{"node below 10", "h:1", "world9", "worldsrv", ""},
		{"absurd node", "h:1", "world99999", "worldsrv", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.Host = c.host
			if got := fleetui.ClientURL(r, c.instance, c.game); got != c.want {
				t.Fatalf("ClientURL = %q, want %q", got, c.want)
			}
		})
	}
}
