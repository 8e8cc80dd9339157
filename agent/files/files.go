// Package files is the agent's jailed file manager: it answers the fm_*
// requests of an instance's files.cmd subject, confining every operation to
// the instance root with os.Root and an optional gitignore-style denylist.
package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

// Limits bounds what one request may do. Zero fields take the defaults of
// DefaultLimits.
type Limits struct {
	ReadMax           int64 // bytes returned by one fm_read
	SaveMax           int64 // bytes of one file written by fm_save
	ExtractMaxBytes   int64 // uncompressed bytes written by one fm_extract
	ExtractMaxEntries int   // entries in an archive fm_extract accepts
	SearchMaxResults  int   // results of one fm_search (and its default limit)
	SearchMaxDepth    int   // directory levels fm_search descends (and its default)
}

// DefaultLimits are the limits used for zero fields.
func DefaultLimits() Limits {
	return Limits{
		ReadMax:           8 << 20,
		SaveMax:           64 << 20,
		ExtractMaxBytes:   2 << 30,
		ExtractMaxEntries: 100_000,
		SearchMaxResults:  1000,
		SearchMaxDepth:    32,
	}
}

// withDefaults fills zero fields and refuses negative ones.
func (l Limits) withDefaults() (Limits, error) {
	d := DefaultLimits()
	fill64 := func(v *int64, def int64, name string) error {
		if *v < 0 {
			return fmt.Errorf("limits: %s is negative", name)
		}
		if *v == 0 {
			*v = def
		}
		return nil
	}
	fill := func(v *int, def int, name string) error {
		x := int64(*v)
		err := fill64(&x, int64(def), name)
		*v = int(x)
		return err
	}
	return l, errors.Join(
		fill64(&l.ReadMax, d.ReadMax, "ReadMax"),
		fill64(&l.SaveMax, d.SaveMax, "SaveMax"),
		fill64(&l.ExtractMaxBytes, d.ExtractMaxBytes, "ExtractMaxBytes"),
		fill(&l.ExtractMaxEntries, d.ExtractMaxEntries, "ExtractMaxEntries"),
		fill(&l.SearchMaxResults, d.SearchMaxResults, "SearchMaxResults"),
		fill(&l.SearchMaxDepth, d.SearchMaxDepth, "SearchMaxDepth"),
	)
}

// Manager serves the file manager of one instance. It is immutable after
// New and safe for concurrent use: every request opens its own os.Root.
type Manager struct {
	root   string    // absolute instance root; immutable after New
	deny   *denylist // immutable after New
	limits Limits    // immutable after New
	log    *slog.Logger

	// allowHardlinks lets content of hard-linked files out (links.go);
	// immutable after New (WithHardlinks makes a new Manager).
	allowHardlinks bool
}

// WithHardlinks returns a copy of m that reads, copies and archives
// regular files with more than one hard link: the instance option
// files.allow_hardlinks, for a root whose every link is known to stay
// inside it. fm_chmod of such a file stays refused. m is unchanged.
func (m *Manager) WithHardlinks() *Manager {
	c := *m
	c.allowHardlinks = true
	return &c
}

// New returns the file manager of the instance rooted at root. deny holds
// gitignore-style patterns (config.Files.Deny); a pattern that does not
// compile is an error wrapping ErrBadDenyPattern. root need not exist yet:
// until it does, every request answers root_missing.
func New(root string, deny []string, limits Limits, logger *slog.Logger) (*Manager, error) {
	if root == "" {
		return nil, errors.New("new file manager: empty instance root")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("new file manager: %w", err)
	}
	d, err := compileDeny(deny)
	if err != nil {
		return nil, fmt.Errorf("new file manager: %w", err)
	}
	l, err := limits.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("new file manager: %w", err)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Manager{root: abs, deny: d, limits: l, log: logger.With("component", "files")}, nil
}

// call is one request being served.
type call struct {
	m   *Manager
	ctx context.Context
	r   *os.Root
	req wire.Request
}

type handlerFunc func(c *call) (any, error)

// handle adapts a handler taking its request's arguments decoded into A;
// arguments of the wrong type are bad_args.
func handle[A any](h func(c *call, a A) (any, error)) handlerFunc {
	return func(c *call) (any, error) {
		var a A
		if err := c.req.Decode(&a); err != nil {
			return nil, badArgs("%s: %v", c.req.Func, err)
		}
		return h(c, a)
	}
}

// handlers maps every supported func to its handler.
var handlers = map[string]handlerFunc{
	wire.FuncFMList:    handle((*call).list),
	wire.FuncFMStat:    handle((*call).stat),
	wire.FuncFMRead:    handle((*call).read),
	wire.FuncFMSave:    handle((*call).save),
	wire.FuncFMMkdir:   handle((*call).mkdir),
	wire.FuncFMRename:  handle((*call).rename),
	wire.FuncFMCopy:    handle((*call).copy),
	wire.FuncFMDelete:  handle((*call).delete),
	wire.FuncFMChmod:   handle((*call).chmod),
	wire.FuncFMSearch:  handle((*call).search),
	wire.FuncFMArchive: handle((*call).archive),
	wire.FuncFMExtract: handle((*call).extract),
}

// Funcs lists the supported func names, sorted.
func Funcs() []string {
	names := make([]string, 0, len(handlers))
	for n := range handlers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Handle serves one decoded files.cmd request. It returns a payload for
// wire.EncodeSuccess (a struct marshalling to a JSON object) or a
// *wire.Error with a stable code. Handle logs a failed request (once: the
// caller only replies); see logLevel for the levels.
func (m *Manager) Handle(ctx context.Context, req wire.Request) (any, error) {
	start := time.Now()
	out, err := m.serve(ctx, req)
	took := time.Since(start)
	if err != nil {
		var we *wire.Error
		if !errors.As(err, &we) {
			we = wire.Errorf(wire.CodeInternal, "%v", err)
		}
		m.log.Log(ctx, logLevel(we.Code), "request failed", "func", req.Func, "code", we.Code, "err", we.Msg, "took", took)
		return nil, err
	}
	m.log.Debug("request served", "func", req.Func, "took", took)
	return out, nil
}

// serve runs req's handler on a freshly opened root; every error it
// returns is a *wire.Error.
func (m *Manager) serve(ctx context.Context, req wire.Request) (any, error) {
	h, ok := handlers[req.Func]
	if !ok {
		return nil, wire.UnknownFunc(req.Func, Funcs())
	}
	r, err := m.openRoot()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out, err := h(&call{m: m, ctx: ctx, r: r, req: req})
	if err != nil {
		return nil, finalErr(req.Func, err)
	}
	return out, nil
}

// logLevel is the level a failed request is logged at: internal errors
// are the agent's problem (error); an unusable root or the operating
// system refusing access need the operator (warn); requests the policy
// refused are worth a trace (info); other client errors (bad arguments,
// missing paths, ...) are routine (debug). Messages carry paths and
// causes, never file content.
func logLevel(code string) slog.Level {
	switch code {
	case wire.CodeInternal:
		return slog.LevelError
	case CodeRootMissing, CodePermission:
		return slog.LevelWarn
	case CodeOutsideRoot, CodeDenied, CodeHardLink:
		return slog.LevelInfo
	}
	return slog.LevelDebug
}

func (m *Manager) openRoot() (*os.Root, error) {
	r, err := os.OpenRoot(m.root)
	if err == nil {
		return r, nil
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, wire.Errorf(CodeRootMissing, "instance root missing: %s", m.root)
	}
	return nil, wire.Errorf(wire.CodeInternal, "open instance root: %v", err)
}

// denied reports whether any of the paths is denied; paths equal to
// another are checked once.
func (c *call) denied(isDir bool, paths ...string) bool {
	for i, p := range paths {
		if i > 0 && p == paths[i-1] {
			continue
		}
		if c.m.deny.Denied(p, isDir) {
			return true
		}
	}
	return false
}

// lookup says how arg resolves a path argument.
type lookup struct {
	follow   bool // follow a symlink at the last name
	missing  bool // the path need not exist (resolved.info is then nil)
	dirIfNew bool // a missing path is judged as a directory by the denylist
}

// arg resolves a required path argument: it must be present, clean, inside
// the root and not denied (checked on the request path and the resolved
// one). The resolved path's type decides isDir for the deny check; a
// missing path counts as lk.dirIfNew.
func (c *call) arg(name string, p *string, lk lookup) (string, resolved, error) {
	if p == nil {
		return "", resolved{}, missingArg(name)
	}
	rel, err := cleanPath(*p)
	if err != nil {
		return "", resolved{}, err
	}
	res, err := resolve(c.r, rel, lk)
	if err != nil {
		return "", resolved{}, err
	}
	isDir := lk.dirIfNew
	if res.info != nil {
		isDir = res.info.IsDir()
	}
	if c.denied(isDir, rel, res.rel) {
		return "", resolved{}, errDenied(rel)
	}
	return rel, res, nil
}
