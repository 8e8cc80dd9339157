package swarm

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/corrosion/corrosion/worldsrv/bot"
)

// maxSamples bounds each latency series; later samples are dropped.
const maxSamples = 1 << 20

// Report is a run's result; its JSON form is what the bench harness reads.
type Report struct {
	Worlds        int     `json:"worlds"`
	Bots          int     `json:"bots"`
	Logins        int     `json:"logins"`
	LoginFailures int     `json:"login_failures"`
	LoginSeconds  float64 `json:"login_seconds"`
	LoginsPerSec  float64 `json:"logins_per_sec"`
	LoginP50Ms    float64 `json:"login_p50_ms"`
	LoginP99Ms    float64 `json:"login_p99_ms"`
	FriendAdds    int     `json:"friend_adds"`
	// FriendsWaitSeconds is how long the bots waited to see their friends
	// online (Config.FriendsOnline); FriendsNotOnline counts the friend
	// rows still not online when that wait ended.
	FriendsWaitSeconds float64        `json:"friends_wait_seconds"`
	FriendsNotOnline   int            `json:"friends_not_online"`
	RunSeconds         float64        `json:"run_seconds"`
	WalksSent          int            `json:"walks_sent"`
	Positions          int            `json:"positions"`
	PositionsPerSec    float64        `json:"positions_per_sec"`
	NearbyMsgs         int            `json:"nearby_msgs"`
	PMsSent            int            `json:"pms_sent"`
	PMsReceived        int            `json:"pms_received"`
	PMP50Ms            float64        `json:"pm_p50_ms"`
	PMP99Ms            float64        `json:"pm_p99_ms"`
	PMsOffline         int            `json:"pms_offline"` // PMs answered TextOffline
	SystemMsgs         int            `json:"system_msgs"` // every system message, PMsOffline's included
	EventsDropped      int            `json:"events_dropped"`
	Errors             map[string]int `json:"errors"`
	Interrupted        bool           `json:"interrupted"`
}

// WriteText writes the report for a person.
func (r Report) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, `worldbot: %d bots on %d world(s)%s
logins      %d ok, %d failed in %.2fs: %.1f/s, latency p50 %.1f ms p99 %.1f ms
friends     %d adds, waited %.2fs to see them online, %d not online
run         %.2fs
walk        %d walks sent, %d Position updates (%.1f/s), %d Nearby updates
pm          %d sent, %d received, %d answered offline, latency p50 %.1f ms p99 %.1f ms
system      %d messages
events      %d dropped
`, r.Bots, r.Worlds, map[bool]string{true: " (interrupted)"}[r.Interrupted],
		r.Logins, r.LoginFailures, r.LoginSeconds, r.LoginsPerSec, r.LoginP50Ms, r.LoginP99Ms,
		r.FriendAdds, r.FriendsWaitSeconds, r.FriendsNotOnline, r.RunSeconds, r.WalksSent, r.Positions,
		r.PositionsPerSec, r.NearbyMsgs, r.PMsSent, r.PMsReceived, r.PMsOffline, r.PMP50Ms, r.PMP99Ms,
		r.SystemMsgs, r.EventsDropped)
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(r.Errors)) {
		if _, err := fmt.Fprintf(w, "error       %s: %d\n", k, r.Errors[k]); err != nil {
			return err
		}
	}
	return nil
}

// recorder collects figures from many goroutines.
type recorder struct {
	mu     sync.Mutex
	logins []time.Duration // guarded by mu
	pms    []time.Duration // guarded by mu
	errs   map[string]int  // guarded by mu
	counts map[string]int  // guarded by mu: "walk", "pm", "friend", "pm_in", "system", "offline"
}

func newRecorder() *recorder { return &recorder{errs: map[string]int{}, counts: map[string]int{}} }

func (r *recorder) login(d time.Duration) { r.sample(&r.logins, d) }
func (r *recorder) pm(d time.Duration)    { r.sample(&r.pms, d) }

func (r *recorder) sample(s *[]time.Duration, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(*s) < maxSamples {
		*s = append(*s, d)
	}
}

func (r *recorder) count(what string) {
	r.mu.Lock()
	r.counts[what]++
	r.mu.Unlock()
}

// fail counts err under step and a short kind.
func (r *recorder) fail(step string, err error) {
	r.mu.Lock()
	r.errs[step+": "+kind(err)]++
	r.mu.Unlock()
}

// kind names an error's class: the login code, a timeout, a closed
// connection, a network error, or "other".
func kind(err error) string {
	var le *bot.LoginError
	var ne net.Error
	switch {
	case errors.As(err, &le):
		return le.Code.String()
	case errors.Is(err, bot.ErrLoginSequence):
		return "login sequence"
	case errors.Is(err, bot.ErrClosed):
		return "connection closed"
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.As(err, &ne):
		return "network"
	}
	return "other"
}

// percentileMs is the nearest-rank q-quantile (0 < q ≤ 1) in milliseconds;
// 0 when there are no samples.
func percentileMs(s []time.Duration, q float64) float64 {
	if len(s) == 0 {
		return 0
	}
	s = slices.Clone(s)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(float64(len(s))*q+0.999999) - 1
	i = min(max(i, 0), len(s)-1)
	return float64(s[i]) / float64(time.Millisecond)
}
