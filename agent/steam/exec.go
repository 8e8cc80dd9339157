package steam

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/corrosion/corrosion/internal/childproc"
)

// run runs steamcmd once: its output (the first MaxVDFBytes, secrets
// masked), exit code and verdict, or an *Error when it could not start,
// hit the limit or was canceled (its process group killed then).
func (r *Runner) run(ctx context.Context, args, secrets []string, onLine func(string)) ([]byte, int, verdict, *Error) {
	limit := r.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	shown := make([]string, len(args))
	for i, a := range args {
		shown[i] = mask(a, secrets)
	}
	r.log().Info("steamcmd: run", "path", r.Path, "args", strings.Join(shown, " "), "limit", limit)

	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, -1, verdict{}, &Error{Code: CodeFailed, Msg: fmt.Sprintf("steamcmd: output pipe: %v", err), Exit: -1, Err: err}
	}
	defer pr.Close()
	cmd := exec.Command(r.Path, args...)
	cmd.Dir = r.home()
	cmd.Env = r.Env
	cmd.Stdout, cmd.Stderr = pw, pw
	g, err := childproc.StartGroup(cmd)
	pw.Close()
	if err != nil {
		return nil, -1, verdict{}, &Error{Code: CodeFailed, Msg: fmt.Sprintf("start %s: %v", filepath.Base(r.Path), errnoOnly(err)), Exit: -1, Err: err}
	}
	defer g.Close()

	var (
		sink = newLineSink(secrets, onLine)
		read sync.WaitGroup
	)
	read.Add(1)
	go func() {
		defer read.Done()
		eachLine(pr, sink.line)
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-waited:
	case <-rctx.Done():
		if kerr := g.Kill(); kerr != nil {
			r.log().Error("steamcmd: kill its process group", "err", kerr)
		}
		<-waited
		drain(&read, pr)
		if ctx.Err() != nil {
			return nil, -1, verdict{}, &Error{Code: CodeCanceled, Msg: "steamcmd: canceled; it was killed", Exit: -1, Err: ctx.Err()}
		}
		return nil, -1, verdict{}, &Error{Code: CodeTimeout, Exit: -1, Err: context.DeadlineExceeded,
			Msg: fmt.Sprintf("steamcmd ran longer than its limit of %s and was killed with its process group", limit)}
	}
	drain(&read, pr)
	exit := cmd.ProcessState.ExitCode()
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		return nil, -1, verdict{}, &Error{Code: CodeFailed, Msg: fmt.Sprintf("steamcmd: %v", werr), Exit: -1, Err: werr}
	}
	r.log().Info("steamcmd: exited", "exit", exit)
	return sink.out.Bytes(), exit, sink.scan.verdict(exit), nil
}
