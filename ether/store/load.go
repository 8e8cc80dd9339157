package store

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/corrosion/corrosion/ether/privacy"
)

// maxBatch is the most players one load query reads.
const maxBatch = 256

// loadReq is one Load waiting for a loader; immutable once sent.
type loadReq struct {
	user uint64
	ctx  context.Context
	done chan loadRes // capacity 1; the loader sends exactly one result
}

// loadRes is a loader's answer, handed over by value.
type loadRes struct {
	lists Lists
	err   error
}

// loader answers load requests, reading every request already waiting
// in the same round trip: one player alone costs one query, and a login
// storm of thousands costs a few dozen.
func (s *Store) loader() {
	for {
		var first *loadReq
		select {
		case <-s.quit:
			return
		case first = <-s.loads:
		}
		batch := []*loadReq{first}
	drain:
		for len(batch) < maxBatch {
			select {
			case r := <-s.loads:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		s.loadBatch(batch)
	}
}

func (s *Store) loadBatch(batch []*loadReq) {
	users := make([]int64, 0, len(batch))
	for _, r := range batch {
		if r.ctx.Err() == nil {
			users = append(users, int64(r.user))
		}
	}
	var lists map[uint64]*Lists
	var err error
	for attempt := 0; attempt < 2; attempt++ { // a pooled connection may be stale after a restart
		lists, err = s.loadMany(users)
		if err == nil || !retryable(err) {
			break
		}
	}
	s.noteResult(err)
	for _, r := range batch {
		res := loadRes{err: err}
		if l := lists[r.user]; err == nil && l != nil {
			res.lists = *l
		}
		r.done <- res
	}
}

func (s *Store) loadMany(users []int64) (map[uint64]*Lists, error) {
	out := make(map[uint64]*Lists, len(users))
	if len(users) == 0 {
		return out, nil
	}
	for _, u := range users {
		out[uint64(u)] = &Lists{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.OpTimeout)
	defer cancel()
	b := &pgx.Batch{}
	b.Queue("SELECT owner_hash, friend_hash FROM friends WHERE owner_hash = ANY($1) ORDER BY owner_hash, created_at, friend_hash", users)
	b.Queue("SELECT owner_hash, ignore_hash FROM ignores WHERE owner_hash = ANY($1) ORDER BY owner_hash, created_at, ignore_hash", users)
	b.Queue("SELECT user_hash, private_mode::int8 FROM player_settings WHERE user_hash = ANY($1)", users)
	br := s.pool.SendBatch(ctx, b)
	defer br.Close()
	sets := []func(l *Lists, v int64){
		func(l *Lists, v int64) { l.Friends = append(l.Friends, uint64(v)) },
		func(l *Lists, v int64) { l.Ignores = append(l.Ignores, uint64(v)) },
		func(l *Lists, v int64) { l.Mode = privacy.Mode(v) },
	}
	for _, set := range sets {
		if err := readPairs(br, out, set); err != nil {
			return nil, err
		}
	}
	return out, br.Close()
}

func readPairs(br pgx.BatchResults, out map[uint64]*Lists, set func(*Lists, int64)) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var owner, v int64
		if err := rows.Scan(&owner, &v); err != nil {
			return err
		}
		if l := out[uint64(owner)]; l != nil {
			set(l, v)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return nil
}
