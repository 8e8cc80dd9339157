// Command benchreport runs the module's Go benchmarks and writes
// BENCHMARKS.md: every figure beside the baseline measured in the same run
// (sub-benchmarks named "baseline" and "corrosion"), the ratio between
// them, the goal, and the machine it ran on. `make bench` calls it.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

func main() {
	out := flag.String("out", "BENCHMARKS.md", "report file")
	pkgs := flag.String("pkgs", "./...", "packages to benchmark")
	benchtime := flag.String("benchtime", "1s", "go test -benchtime")
	from := flag.String("from", "", "render saved `go test -bench` output instead of running it")
	flag.Parse()
	if *from != "" {
		f, err := os.Open(*from)
		if err != nil {
			fmt.Fprintf(os.Stderr, "benchreport: %v\n", err)
			os.Exit(1)
		}
		defer f.Close()
		write(*out, parse(f))
		return
	}
	args := []string{"test", "-run", "^$", "-bench", ".", "-benchmem", "-benchtime", *benchtime, "-timeout", "30m"}
	args = append(args, strings.Fields(*pkgs)...)
	fmt.Fprintf(os.Stderr, "benchreport: go %s\n", strings.Join(args, " "))
	cmd := exec.Command("go", args...)
	var buf bytes.Buffer
	cmd.Stdout = io.MultiWriter(os.Stderr, &buf)
	cmd.Stderr = os.Stderr
	runErr := cmd.Run()
	write(*out, parse(&buf))
	if runErr != nil {
		fmt.Fprintf(os.Stderr, "benchreport: go test failed: %v\n", runErr)
		os.Exit(1)
	}
}

func write(out string, results []result) {
	report := render(results, machine(), time.Now().UTC())
	if err := os.WriteFile(out, []byte(report), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "benchreport: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "benchreport: wrote %s (%d results)\n", out, len(results))
}

// result is one benchmark line.
type result struct {
	pkg     string
	name    string // full name without the -N GOMAXPROCS suffix
	iters   int64
	metrics []metric // in output order
}

type metric struct {
	value float64
	unit  string
}

func (r result) get(unit string) (float64, bool) {
	for _, m := range r.metrics {
		if m.unit == unit {
			return m.value, true
		}
	}
	return 0, false
}

// parse reads `go test -bench` output.
func parse(r io.Reader) []result {
	var out []result
	pkg := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = p
			continue
		}
		if res, ok := parseLine(line); ok {
			res.pkg = pkg
			out = append(out, res)
		}
	}
	return out
}

func parseLine(line string) (result, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
		return result{}, false
	}
	var res result
	res.name = trimProcs(f[0])
	if _, err := fmt.Sscan(f[1], &res.iters); err != nil {
		return result{}, false
	}
	for i := 2; i+1 < len(f); i += 2 {
		var v float64
		if _, err := fmt.Sscan(f[i], &v); err != nil {
			return result{}, false
		}
		res.metrics = append(res.metrics, metric{value: v, unit: f[i+1]})
	}
	return res, true
}

// trimProcs removes the trailing -N that go test adds.
func trimProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return name
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return name
		}
	}
	return name[:i]
}

func machine() string {
	var b strings.Builder
	fmt.Fprintf(&b, "- Go: %s, %s/%s, %d CPUs (GOMAXPROCS %d)\n", runtime.Version(), runtime.GOOS, runtime.GOARCH,
		runtime.NumCPU(), runtime.GOMAXPROCS(0))
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(l, "model name\t: "); ok {
				fmt.Fprintf(&b, "- CPU: %s\n", v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		fmt.Fprintf(&b, "- Memory: %s\n", strings.TrimSpace(strings.SplitN(string(data), "\n", 2)[0]))
	}
	return b.String()
}
