package supervise

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/agent/wire"
)

// FuzzSplitLines: splitting loses nothing but line ends (and a \r before
// one), and no line exceeds the cap, whatever the child prints.
func FuzzSplitLines(f *testing.F) {
	for _, s := range []string{"", "a\nb\n", "no newline", "crlf\r\nx\r\n", "\n\n\n", "\r", strings.Repeat("y", 70000) + "\nz"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, rest := splitLines(nil, data)
		var joined []byte
		for _, l := range lines {
			if len(l) > wire.MaxLineBytes {
				t.Fatalf("line of %d bytes", len(l))
			}
			joined = append(joined, l...)
		}
		joined = append(joined, rest...)
		want := bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
		want = bytes.ReplaceAll(want, []byte("\n"), nil)
		if !bytes.Equal(joined, want) {
			t.Fatalf("split lost or changed bytes:\n got %q\nwant %q", joined, want)
		}
		if bytes.IndexByte(rest, '\n') >= 0 {
			t.Fatal("rest holds a complete line")
		}
	})
}

// splitStep is one thing done to a lineSplitter in a test: feed bytes, or
// report a skip.
type splitStep struct {
	feed string
	skip skipEnd // used when feed is empty
}

// runSplitter applies steps to a fresh splitter and returns the lines it
// emitted (copied), those of the final flush, and the bytes it discarded.
func runSplitter(steps []splitStep) (lines, flushed []string, discarded int) {
	var s lineSplitter
	collect := func(dst *[]string) func([][]byte) {
		return func(ls [][]byte) {
			for _, l := range ls {
				*dst = append(*dst, string(l))
			}
		}
	}
	for _, st := range steps {
		if st.feed == "" {
			s.skipped(st.skip)
			continue
		}
		discarded += s.feed([]byte(st.feed), collect(&lines))
	}
	s.flush(collect(&flushed))
	return lines, flushed, discarded
}

func feeds(chunks ...string) []splitStep {
	out := make([]splitStep, len(chunks))
	for i, c := range chunks {
		out[i] = splitStep{feed: c}
	}
	return out
}

func TestLineSplitter(t *testing.T) {
	long := strings.Repeat("x", wire.MaxLineBytes)
	cases := []struct {
		name      string
		steps     []splitStep
		lines     []string
		flushed   []string
		discarded int
	}{
		{name: "carry across chunks", steps: feeds("ab", "c\nd", "e\n"), lines: []string{"abc", "de"}},
		{name: "crlf split across chunks", steps: feeds("a\r", "\nb\r\n"), lines: []string{"a", "b"}},
		{name: "unterminated line is flushed", steps: feeds("a\nbc", "d"), lines: []string{"a"}, flushed: []string{"bcd"}},
		{name: "empty lines are lines", steps: feeds("\n\n"), lines: []string{"", ""}},
		{name: "long line cut at the cap across chunks", steps: feeds(long[:100], long[100:]+"yy", "z\n"),
			lines: []string{long, "yyz"}},
		{name: "a line of exactly the cap with crlf split after the cr", steps: feeds(long+"\r", "\n"),
			lines: []string{long}},
		{name: "a cr after the cap that ends no line", steps: feeds(long+"\r", "z\n"),
			lines: []string{long, "\rz"}},
		{name: "a cr after the cap that ends the stream", steps: feeds(long + "\r"),
			flushed: []string{long, "\r"}},
		{name: "skip inside a line discards its rest",
			steps:     []splitStep{{feed: "carried"}, {skip: skipEndMidLine}, {feed: "rest\nnext\n"}},
			lines:     []string{"next"},
			discarded: len("rest\n")},
		{name: "discard spans chunks",
			steps:     []splitStep{{skip: skipEndMidLine}, {feed: "aaa"}, {feed: "b\nc\n"}},
			lines:     []string{"c"},
			discarded: len("aaab\n")},
		{name: "skip at a line boundary keeps the next line",
			steps: []splitStep{{feed: "carried"}, {skip: skipEndLineBoundary}, {feed: "next\n"}},
			lines: []string{"next"}},
		{name: "a skip of unknown end keeps a pending discard",
			steps:     []splitStep{{skip: skipEndMidLine}, {skip: skipEndUnknown}, {feed: "tail\nx\n"}},
			lines:     []string{"x"},
			discarded: len("tail\n")},
		{name: "a boundary skip cancels a pending discard",
			steps: []splitStep{{skip: skipEndMidLine}, {skip: skipEndLineBoundary}, {feed: "kept\n"}},
			lines: []string{"kept"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lines, flushed, discarded := runSplitter(tc.steps)
			if !slices.Equal(lines, tc.lines) || !slices.Equal(flushed, tc.flushed) || discarded != tc.discarded {
				t.Fatalf("lines %q flushed %q discarded %d; want %q, %q, %d",
					short(lines), short(flushed), discarded, short(tc.lines), short(tc.flushed), tc.discarded)
			}
		})
	}
}

// short abbreviates long lines for failure messages.
func short(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) > 20 {
			l = fmt.Sprintf("%s…(%d bytes)", l[:8], len(l))
		}
		out[i] = l
	}
	return out
}

func TestLineSplitter_FlushForgetsTheLine(t *testing.T) {
	var s lineSplitter
	s.feed([]byte("partial"), func([][]byte) { t.Fatal("no complete line yet") })
	var got []string
	collect := func(ls [][]byte) {
		for _, l := range ls {
			got = append(got, string(l))
		}
	}
	s.flush(collect)
	s.flush(collect)
	if !slices.Equal(got, []string{"partial"}) {
		t.Fatalf("two flushes gave %q", got)
	}
}

// FuzzLineSplitter_Chunking: how the stream is cut into reads does not
// change the lines: feeding data in chunks emits what splitting it at once
// does (the rest arriving as the final flush, cut at the cap), and no line
// exceeds the cap.
func FuzzLineSplitter_Chunking(f *testing.F) {
	f.Add([]byte("one\ntwo\r\nthree"), uint8(3))
	f.Add([]byte("a\r\nb"), uint8(2))
	f.Add([]byte("\r\n\r\r\n\n"), uint8(0))
	// Lines past the cap are slow to fuzz in small reads; TestLineSplitter
	// covers the cap across reads.
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		want, rest := splitLines(nil, data)
		var s lineSplitter
		var got [][]byte
		emit := func(ls [][]byte) {
			for _, l := range ls {
				got = append(got, bytes.Clone(l))
			}
		}
		size := int(step) + 1
		for p := data; len(p) > 0; {
			n := min(size, len(p))
			s.feed(p[:n], emit)
			p = p[n:]
			size = size*37%1021 + 1 // vary the chunk sizes: 1 to 1021 bytes
		}
		s.flush(emit)
		want = appendCapped(want, rest)
		if len(rest) == 0 {
			want = want[:len(want)-1] // appendCapped added an empty line
		}
		for _, l := range got {
			if len(l) > wire.MaxLineBytes {
				t.Fatalf("line of %d bytes", len(l))
			}
		}
		if !slices.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("chunked split differs:\n got %q\nwant %q", got, want)
		}
	})
}
