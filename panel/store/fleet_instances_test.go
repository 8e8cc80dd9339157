package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/corrosion/corrosion/panel/store"
)

// InstancesOf reads every instance of the enabled licenses asked for, in
// one query ordered by license then id: nil asks for every license, an
// empty list for none, and a disabled license's instances are not listed.
func TestInstancesOf_GrantsAndDisabledLicenses(t *testing.T) {
	s := openFleetStore(t, "lic1", "lic2", "lic3")
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	fleetApply(t, s, store.Batch{
		Heartbeats: []store.HeartbeatRow{
			fleetHeartbeat(t, "lic1", now, now, "b", "running", "a", "stopped"),
			fleetHeartbeat(t, "lic2", now, now, "c", "crashed"),
			fleetHeartbeat(t, "lic3", now, now, "d", "running"),
		},
		Messages: map[string]int64{"lic1": 1, "lic2": 1, "lic3": 1},
	})
	if err := s.SetLicenseDisabled(ctx, "lic3", store.LicenseDisabled); err != nil {
		t.Fatal(err)
	}
	keys := func(licenses []string) []string {
		t.Helper()
		ins, err := s.InstancesOf(ctx, licenses)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, in := range ins {
			out = append(out, in.License+"/"+in.ID+"="+string(in.State))
		}
		return out
	}
	for _, tc := range []struct {
		licenses []string
		want     []string
	}{
		{nil, []string{"lic1/a=stopped", "lic1/b=running", "lic2/c=crashed"}},
		{[]string{"lic2"}, []string{"lic2/c=crashed"}},
		{[]string{"lic3", "nope"}, nil},
		{[]string{}, nil},
	} {
		if got := keys(tc.licenses); !slices.Equal(got, tc.want) {
			t.Errorf("InstancesOf(%q) = %v, want %v", tc.licenses, got, tc.want)
		}
	}
}
