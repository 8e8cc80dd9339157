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

// handlers maps every supported func to its handler.
var handlers = map[string]handlerFunc{
	"fm_list":    (*call).list,
	"fm_stat":    (*call).stat,
	"fm_read":    (*call).read,
	"fm_save":    (*call).save,
	"fm_mkdir":   (*call).mkdir,
	"fm_rename":  (*call).rename,
	"fm_copy":    (*call).copy,
	"fm_delete":  (*call).delete,
	"fm_chmod":   (*call).chmod,
	"fm_search":  (*call).search,
	"fm_archive": (*call).archive,
	"fm_extract": (*call).extract,
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
// *wire.Error with a stable code.
func (m *Manager) Handle(ctx context.Context, req wire.Request) (any, error) {
	h, ok := handlers[req.Func]
	if !ok {
		return nil, wire.UnknownFunc(req.Func, Funcs())
	}
	start := time.Now()
	r, err := m.openRoot()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out, err := h(&call{m: m, ctx: ctx, r: r, req: req})
	if err != nil {
		return nil, finalErr(req.Func, err) // the caller replies and logs
	}
	m.log.Debug("request served", "func", req.Func, "took", time.Since(start))
	return out, nil
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

// decode unmarshals the request's arguments into v.
func (c *call) decode(v any) error {
	if err := c.req.Decode(v); err != nil {
		return badArgs("%s: %v", c.req.Func, err)
	}
	return nil
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

// arg resolves a required path argument: it must be present, clean, inside
// the root and not denied (checked on the request path and the resolved
// one). The resolved path's type decides isDir for the deny check; a
// missing path counts as wantDir.
func (c *call) arg(name string, p *string, followLast, allowMissing, wantDir bool) (string, resolved, error) {
	if p == nil {
		return "", resolved{}, missingArg(name)
	}
	rel, err := cleanPath(*p)
	if err != nil {
		return "", resolved{}, err
	}
	res, err := resolve(c.r, rel, followLast, allowMissing)
	if err != nil {
		return "", resolved{}, err
	}
	isDir := wantDir
	if res.info != nil {
		isDir = res.info.IsDir()
	}
	if c.denied(isDir, rel, res.rel) {
		return "", resolved{}, errDenied(rel)
	}
	return rel, res, nil
}
