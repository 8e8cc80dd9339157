package files

import (
	"strings"

	"github.com/corrosion/corrosion/agent/wire"
)

type searchArgs struct {
	Path     *string `json:"path"`
	Query    *string `json:"query"`
	MaxDepth *int    `json:"max_depth"`
	Limit    *int    `json:"limit"`
}

// bound applies a request's optional bound under the configured maximum:
// absent or 0 means the maximum, negative is bad_args.
func bound(name string, v *int, max int) (int, error) {
	switch {
	case v == nil || *v == 0:
		return max, nil
	case *v < 0:
		return 0, badArgs("negative %q", name)
	}
	return min(*v, max), nil
}

// searchDir is a directory queued for fm_search: its path as the client
// names it, its resolved path, and its depth (1 for the start's children).
type searchDir struct {
	rel, res string
	depth    int
}

// search matches names case-insensitively against the query, breadth
// first, without following symlinked directories. Denied entries are
// neither reported nor descended into; unreadable directories below the
// start are skipped.
func (c *call) search(a searchArgs) (any, error) {
	if a.Query == nil || *a.Query == "" {
		return nil, missingArg("query")
	}
	depth, err := bound("max_depth", a.MaxDepth, c.m.limits.SearchMaxDepth)
	if err != nil {
		return nil, err
	}
	limit, err := bound("limit", a.Limit, c.m.limits.SearchMaxResults)
	if err != nil {
		return nil, err
	}
	rel, res, err := c.arg("path", a.Path, lookup{follow: true})
	if err != nil {
		return nil, err
	}
	if !res.info.IsDir() {
		return nil, wire.Errorf(CodeNotADirectory, "search %q: not a directory", rel)
	}
	query := strings.ToLower(*a.Query)
	out := SearchReply{Results: []SearchResult{}}
	queue := []searchDir{{rel: rel, res: res.rel, depth: 1}}
	for len(queue) > 0 {
		if err := c.ctx.Err(); err != nil {
			return nil, err
		}
		d := queue[0]
		queue = queue[1:]
		infos, err := c.readDir(d.res)
		if err != nil {
			if d.rel == rel {
				return nil, mapErr("search", rel, err)
			}
			continue
		}
		sortInfos(infos)
		for _, fi := range infos {
			name := fi.Name()
			sub, subRes := joinRel(d.rel, name), joinRel(d.res, name)
			if c.denied(fi.IsDir(), sub, subRes) {
				continue
			}
			if strings.Contains(strings.ToLower(name), query) {
				if len(out.Results) == limit {
					out.Truncated = true
					return out, nil
				}
				out.Results = append(out.Results, SearchResult{Path: sub, Entry: entryOf(name, fi)})
			}
			if fi.IsDir() && d.depth < depth {
				queue = append(queue, searchDir{rel: sub, res: subRes, depth: d.depth + 1})
			}
		}
	}
	return out, nil
}
