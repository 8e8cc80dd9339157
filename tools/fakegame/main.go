// Command fakegame stands in for a third party's game server in tests. It has
// knobs for everything the agent must handle: run time, exit code, output
// rate on stdout and stderr, a stdin stop line, ignoring SIGTERM, a readiness
// line, stdin echo, and a grandchild to test process-tree kills.
//
// It is built by tests (internal/testbin) and never shipped.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

type knobs struct {
	runFor        time.Duration
	exitCode      int
	stdoutRate    int
	stderrRate    int
	stopLine      string
	stopExitCode  int
	ignoreTerm    bool
	readyAfter    time.Duration
	readyLine     string
	echoStdin     bool
	flood         int
	floodDevNull  bool
	floodReport   string
	spawnChild    bool
	lineText      string
	pidFile       string
	termExitCode  int
	startupBanner string
	ignoreStdin   bool
	printEnv      string
}

func main() {
	var k knobs
	flag.DurationVar(&k.runFor, "run-for", 0, "exit after this long (0: run until stopped)")
	flag.IntVar(&k.exitCode, "exit-code", 0, "exit code when -run-for elapses or a flood ends")
	flag.IntVar(&k.stdoutRate, "stdout-lines", 0, "lines per second on stdout")
	flag.IntVar(&k.stderrRate, "stderr-lines", 0, "lines per second on stderr")
	flag.StringVar(&k.stopLine, "stop-line", "stop", "a stdin line that makes the process exit cleanly (empty: none)")
	flag.IntVar(&k.stopExitCode, "stop-exit-code", 0, "exit code after the stop line")
	flag.BoolVar(&k.ignoreTerm, "ignore-sigterm", false, "ignore SIGTERM (and SIGINT)")
	flag.IntVar(&k.termExitCode, "term-exit-code", 0, "exit code after SIGTERM")
	flag.DurationVar(&k.readyAfter, "ready-after", 0, "print the ready line after this long")
	flag.StringVar(&k.readyLine, "ready-line", "Server ready", "the line printed after -ready-after")
	flag.BoolVar(&k.echoStdin, "echo-stdin", true, "print each stdin line as 'echo: LINE' on stdout")
	flag.IntVar(&k.flood, "flood", 0, "print this many stdout lines as fast as possible, then exit")
	flag.BoolVar(&k.floodDevNull, "flood-devnull", false, "with -flood: write to /dev/null instead (baseline)")
	flag.StringVar(&k.floodReport, "flood-report", "", "with -flood: also write the rate report to this file")
	flag.BoolVar(&k.spawnChild, "spawn-child", false, "start a grandchild that sleeps; print 'child pid N'")
	flag.StringVar(&k.lineText, "line", "tick", "text of the rate-driven output lines")
	flag.StringVar(&k.pidFile, "pid-file", "", "write the pid here at start")
	flag.StringVar(&k.startupBanner, "banner", "fakegame starting", "first stdout line (empty: none)")
	flag.BoolVar(&k.ignoreStdin, "ignore-stdin", false, "never read stdin (a game that does not read its console)")
	flag.StringVar(&k.printEnv, "print-env", "", "comma-separated variable names: print 'env NAME=value' or 'env NAME unset' for each")
	childMode := flag.Bool("sleep-child", false, "internal: act as the sleeping grandchild")
	flag.Parse()
	if *childMode {
		time.Sleep(time.Hour)
		return
	}
	os.Exit(run(k))
}

func run(k knobs) int {
	if k.pidFile != "" {
		_ = os.WriteFile(k.pidFile, []byte(fmt.Sprint(os.Getpid())), 0o644)
	}
	if k.flood > 0 {
		return flood(k)
	}
	out := bufio.NewWriter(os.Stdout)
	say := func(format string, a ...any) {
		fmt.Fprintf(out, format+"\n", a...)
		out.Flush()
	}
	if k.startupBanner != "" {
		say("%s pid=%d", k.startupBanner, os.Getpid())
	}
	for _, name := range strings.Split(k.printEnv, ",") {
		if name == "" {
			continue
		}
		if v, ok := os.LookupEnv(name); ok {
			say("env %s=%s", name, v)
		} else {
			say("env %s unset", name)
		}
	}
	if k.spawnChild {
		c := exec.Command(os.Args[0], "-sleep-child")
		if err := c.Start(); err != nil {
			say("spawn child: %v", err)
			return 3
		}
		say("child pid %d", c.Process.Pid)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
	stdinStop := make(chan struct{})
	if !k.ignoreStdin {
		go readStdin(k, say, stdinStop)
	}
	var deadline <-chan time.Time
	if k.runFor > 0 {
		deadline = time.After(k.runFor)
	}
	var ready <-chan time.Time
	if k.readyAfter > 0 {
		ready = time.After(k.readyAfter)
	}
	outTick := ticker(k.stdoutRate)
	errTick := ticker(k.stderrRate)
	n := 0
	for {
		select {
		case <-deadline:
			say("run-for elapsed, exiting with %d", k.exitCode)
			return k.exitCode
		case <-ready:
			say("%s", k.readyLine)
		case <-outTick:
			n++
			say("%s %d", k.lineText, n)
		case <-errTick:
			n++
			fmt.Fprintf(os.Stderr, "%s %d\n", k.lineText, n)
		case s := <-sigs:
			if k.ignoreTerm {
				say("ignoring %v", s)
				continue
			}
			say("got %v, shutting down", s)
			return k.termExitCode
		case <-stdinStop:
			say("stop line received, shutting down")
			return k.stopExitCode
		}
	}
}

func readStdin(k knobs, say func(string, ...any), stop chan<- struct{}) {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if k.stopLine != "" && line == k.stopLine {
			close(stop)
			return
		}
		if k.echoStdin {
			say("echo: %s", line)
		}
	}
}

func ticker(perSecond int) <-chan time.Time {
	if perSecond <= 0 {
		return nil
	}
	return time.NewTicker(time.Second / time.Duration(perSecond)).C
}

// flood prints k.flood numbered lines as fast as it can and reports the
// rate on stderr, so benchmarks can compare against a /dev/null baseline.
func flood(k knobs) int {
	var dst *os.File = os.Stdout
	if k.floodDevNull {
		f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return 3
		}
		dst = f
	}
	w := bufio.NewWriterSize(dst, 64<<10)
	start := time.Now()
	for i := 1; i <= k.flood; i++ {
		fmt.Fprintf(w, "%s %d\n", k.lineText, i)
	}
	w.Flush()
	el := time.Since(start)
	report := fmt.Sprintf("flood lines=%d seconds=%.6f\n", k.flood, el.Seconds())
	fmt.Fprint(os.Stderr, report)
	if k.floodReport != "" {
		_ = os.WriteFile(k.floodReport, []byte(report), 0o644)
	}
	return k.exitCode
}
