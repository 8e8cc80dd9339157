package bot

import (
	"strconv"
	"strings"
	"time"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// stampPrefix starts a stamped PM text: "lat <seq> <unix nanos> [rest]",
// digits only, so no word filter mangles it. 4+20+1+19 bytes at most.
const stampPrefix = "lat "

// Stamp returns a PM text carrying seq and the send time, for the
// receiver's latency (PM.Latency). It fits proto.MaxText.
func Stamp(seq uint64, sent time.Time) string {
	b := make([]byte, 0, 48)
	b = append(b, stampPrefix...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, sent.UnixNano(), 10)
	return string(b)
}

// ParseStamp reads a Stamp from the start of text.
func ParseStamp(text string) (seq uint64, sent time.Time, ok bool) {
	rest, found := strings.CutPrefix(text, stampPrefix)
	if !found {
		return 0, time.Time{}, false
	}
	f := strings.Fields(rest)
	if len(f) < 2 {
		return 0, time.Time{}, false
	}
	seq, err1 := strconv.ParseUint(f[0], 10, 64)
	ns, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, time.Time{}, false
	}
	return seq, time.Unix(0, ns), true
}

// newPM makes a PM of m received at now, owning its strings.
func newPM(m *proto.PrivateMessageIn, now time.Time) PM {
	pm := PM{From: proto.DecodeName(m.From37), Text: strings.Clone(m.Text), Level: m.Level, At: now}
	if seq, sent, ok := ParseStamp(pm.Text); ok {
		pm.Seq, pm.Sent, pm.Latency, pm.Stamped = seq, sent, now.Sub(sent), true
	}
	return pm
}
