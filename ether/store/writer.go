package store

import (
	"context"
	"time"
)

const (
	minBackoff = 50 * time.Millisecond
	maxBackoff = 2 * time.Second
)

// writeLoop stores queued ops one at a time, in order. A connection
// failure leaves the op at the head and retries it with backoff; an error
// that retrying cannot fix drops the op with a log line.
func (s *Store) writeLoop(ctx context.Context) {
	backoff := minBackoff
	for {
		o := s.q.head()
		if o == nil {
			select {
			case <-ctx.Done():
				return
			case <-s.q.notify:
				continue
			}
		}
		err := s.exec(context.Background(), o)
		switch {
		case err == nil:
			s.q.pop(o)
			s.q.finish(o, true)
			s.noteResult(nil)
			backoff = minBackoff
			continue
		case !retryable(err):
			s.log.Error("write dropped: the database rejected it", "op", o.kind.String(), "user", o.owner, "err", err)
			s.q.pop(o)
			s.q.finish(o, false)
			continue
		}
		s.markDown(err)
		s.q.finish(o, false)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, maxBackoff)
	}
}

// flush tries, once, to store what is still queued at shutdown, within
// OpTimeout overall.
func (s *Store) flush() {
	deadline := time.Now().Add(s.cfg.OpTimeout)
	for time.Now().Before(deadline) {
		o := s.q.head()
		if o == nil {
			return
		}
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		err := s.exec(ctx, o)
		cancel()
		if err != nil && retryable(err) {
			break
		}
		s.q.pop(o)
		s.q.finish(o, err == nil)
	}
	if n := s.q.len(); n > 0 {
		s.log.Error("shutting down with writes the database did not take", "lost", n)
	}
}

// listSQL is the writes of one of a player's lists (friends, ignores):
// add the other player unless the owner's list already holds the limit
// (checked in SQL too, for sessions that could not load their list), and
// delete them.
type listSQL struct{ add, del string }

// newListSQL is the writes of the list in table, whose column names the
// other player.
func newListSQL(table, column string) listSQL {
	return listSQL{
		add: "INSERT INTO " + table + " (owner_hash, " + column + ")" +
			" SELECT $1, $2 WHERE (SELECT count(*) FROM " + table + " WHERE owner_hash = $1) < $3" +
			" ON CONFLICT DO NOTHING",
		del: "DELETE FROM " + table + " WHERE owner_hash = $1 AND " + column + " = $2",
	}
}

var (
	friendsSQL = newListSQL("friends", "friend_hash")
	ignoresSQL = newListSQL("ignores", "ignore_hash")
)

// list is the writes of the list a friend or ignore op changes.
func (k opKind) list() listSQL {
	if k == opFriendAdd || k == opFriendDel {
		return friendsSQL
	}
	return ignoresSQL
}

func (s *Store) exec(ctx context.Context, o *op) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.OpTimeout)
	defer cancel()
	var err error
	owner, other := int64(o.owner), int64(o.other)
	switch o.kind {
	case opFriendAdd, opIgnoreAdd:
		_, err = s.pool.Exec(ctx, o.kind.list().add, owner, other, o.limit)
	case opFriendDel, opIgnoreDel:
		_, err = s.pool.Exec(ctx, o.kind.list().del, owner, other)
	case opSetMode:
		_, err = s.pool.Exec(ctx, `INSERT INTO player_settings (user_hash, private_mode) VALUES ($1, $2)
			ON CONFLICT (user_hash) DO UPDATE SET private_mode = EXCLUDED.private_mode, updated_at = now()`,
			owner, int16(o.mode))
	case opSave:
		_, err = s.pool.Exec(ctx, `INSERT INTO player_saves (user_hash, save_data) VALUES ($1, $2)
			ON CONFLICT (user_hash) DO UPDATE SET save_data = EXCLUDED.save_data, updated_at = now()`,
			owner, o.data)
	}
	return err
}
