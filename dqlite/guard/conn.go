package guard

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"
)

// Connector wraps c, a dqlite driver's connector, for sql.OpenDB. Every
// statement passes Check for the path it is sent on before it reaches the
// cluster (docs/cluster.md K1, K2, K4, K10). Writes wait for the write lock
// instead of failing with SQLITE_BUSY: a transaction begins with BEGIN
// IMMEDIATE, and an exec outside one is sent inside BEGIN IMMEDIATE …
// COMMIT; a statement that finds the lock taken is sent again after a short
// wait until its context ends (K10). A failed COMMIT whose write may be in
// the cluster is an *UnknownOutcome; every other failure wrote nothing (K11).
func Connector(c driver.Connector) driver.Connector {
	return &connector{inner: c, writer: make(chan struct{}, 1)}
}

type connector struct {
	inner driver.Connector
	// writer is held by the connection whose transaction holds the write
	// lock: the other connections of this process wait for it here, in
	// turn, instead of asking the leader again and again (K10).
	writer chan struct{}
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	inner, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{inner: inner, writer: c.writer}, nil
}

func (c *connector) Driver() driver.Driver { return c.inner.Driver() }

// conn is one connection to the leader. go-dqlite's connection implements
// every context method; the guard needs them all.
type conn struct {
	inner   driver.Conn
	writer  chan struct{} // the connector's
	holding bool          // this connection holds writer
	inTx    bool          // between BeginTx and Commit or Rollback
	broken  bool          // the connection to the leader failed: database/sql drops it
}

var errNoContext = errors.New("dqlite guard: the dqlite driver lacks a context method")

// rollbackWait bounds the ROLLBACK of a transaction that failed.
const rollbackWait = 5 * time.Second

// fail notes a lost connection, and makes its error driver.ErrBadConn.
func (c *conn) fail(err error) error {
	if err == nil || !lost(err) {
		return err
	}
	c.broken = true
	return badConn(err)
}

// write runs one statement that may write. Inside a transaction it runs as
// it is; outside one, inside BEGIN IMMEDIATE … COMMIT, so that it waits for
// the write lock, so that a lost connection is found before anything is
// sent, and so that only the COMMIT can leave the outcome unknown (K10, K11).
func (c *conn) write(ctx context.Context, query string, run func() (driver.Result, error)) (driver.Result, error) {
	if c.broken {
		return nil, driver.ErrBadConn
	}
	var res driver.Result
	send := func() error { return whileBusy(ctx, func() (err error) { res, err = run(); return err }) }
	switch {
	case c.inTx:
		return res, c.fail(send())
	case alone(query):
		err := send()
		if err != nil && lost(err) {
			c.broken = true
			return nil, &UnknownOutcome{Err: err}
		}
		return res, err
	}
	if err := c.begin(ctx, true); err != nil {
		return nil, err
	}
	if err := send(); err != nil {
		err = c.fail(err)
		c.rollback()
		return nil, err
	}
	return res, c.commit()
}

// begin begins a transaction: one that writes with BEGIN IMMEDIATE, after
// this process's other writing transactions.
func (c *conn) begin(ctx context.Context, writes bool) error {
	e, ok := c.inner.(driver.ExecerContext)
	if !ok {
		return errNoContext
	}
	begin := "BEGIN"
	if writes {
		begin = "BEGIN IMMEDIATE"
		select {
		case c.writer <- struct{}{}:
			c.holding = true
		case <-ctx.Done():
			return fmt.Errorf("dqlite guard: waited for this process's other writing transactions until the context ended: %w", ctx.Err())
		}
	}
	err := whileBusy(ctx, func() error { _, err := e.ExecContext(ctx, begin, nil); return err })
	if err != nil {
		c.end()
		return c.fail(err)
	}
	c.inTx = true
	return nil
}

// end notes that the transaction is over, and lets the next writer of
// this process begin.
func (c *conn) end() {
	c.inTx = false
	if c.holding {
		c.holding = false
		<-c.writer
	}
}

// commitWait bounds the wait for a COMMIT's answer. The leader answers
// once a majority of the nodes has the write, or once it lost its
// leadership (within an election timeout), so only a leader gone from the
// network makes the wait this long.
const commitWait = time.Minute

// commit ends the transaction. A COMMIT that SQLite refused wrote nothing,
// and the transaction is rolled back; any other failure leaves it unknown
// whether the write is in the cluster. Once sent, a COMMIT is waited for
// past the caller's deadline, up to commitWait: its write goes on either
// way, and an answer is worth more than a deadline met with "unknown".
func (c *conn) commit() error {
	e, ok := c.inner.(driver.ExecerContext)
	if !ok {
		return errNoContext
	}
	ctx, cancel := context.WithTimeout(context.Background(), commitWait)
	defer cancel()
	err := whileBusy(ctx, func() error { _, err := e.ExecContext(ctx, "COMMIT", nil); return err })
	if err == nil {
		c.end()
		return nil
	}
	if refusedBeforeRaft(err) {
		c.rollback()
		return err
	}
	c.end()
	c.broken = true
	return &UnknownOutcome{Err: err}
}

func (c *conn) rollback() {
	defer c.end()
	if c.broken {
		return // the leader rolls back a connection it lost
	}
	ctx, cancel := context.WithTimeout(context.Background(), rollbackWait)
	defer cancel()
	if e, ok := c.inner.(driver.ExecerContext); ok {
		if _, err := e.ExecContext(ctx, "ROLLBACK", nil); err != nil && lost(err) {
			c.broken = true
		}
	}
}

func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if c.broken {
		return nil, driver.ErrBadConn
	}
	p, ok := c.inner.(driver.ConnPrepareContext)
	if !ok {
		return nil, errNoContext
	}
	s, err := p.PrepareContext(ctx, query)
	if err != nil {
		return nil, c.fail(err)
	}
	return &stmt{Stmt: s, conn: c, query: query}, nil
}

func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if err := Check(Exec, query); err != nil {
		return nil, err
	}
	e, ok := c.inner.(driver.ExecerContext)
	if !ok {
		return nil, errNoContext
	}
	return c.write(ctx, query, func() (driver.Result, error) { return e.ExecContext(ctx, query, args) })
}

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if err := Check(Query, query); err != nil {
		return nil, err
	}
	if c.broken {
		return nil, driver.ErrBadConn
	}
	q, ok := c.inner.(driver.QueryerContext)
	if !ok {
		return nil, errNoContext
	}
	var rows driver.Rows
	err := whileBusy(ctx, func() (err error) { rows, err = q.QueryContext(ctx, query, args); return err })
	return rows, c.fail(err)
}

// BeginTx begins a transaction that holds the write lock from its start,
// waiting for it (K10); a read-only one takes no lock.
func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if c.broken {
		return nil, driver.ErrBadConn
	}
	if err := c.begin(ctx, !opts.ReadOnly); err != nil {
		return nil, err
	}
	return &tx{conn: c}, nil
}

func (c *conn) Begin() (driver.Tx, error) { return c.BeginTx(context.Background(), driver.TxOptions{}) }

func (c *conn) Close() error {
	c.end()
	return c.inner.Close()
}

// ResetSession and IsValid make database/sql drop a connection that lost
// the leader, instead of handing it to the next statement.
func (c *conn) ResetSession(ctx context.Context) error {
	if c.broken {
		return driver.ErrBadConn
	}
	return nil
}

func (c *conn) IsValid() bool { return !c.broken }

// tx is a transaction of BeginTx.
type tx struct{ conn *conn }

func (t *tx) Commit() error {
	if t.conn.broken {
		return driver.ErrBadConn // nothing was sent: the leader rolled it back
	}
	return t.conn.commit()
}

func (t *tx) Rollback() error {
	t.conn.rollback()
	return nil
}

type stmt struct {
	driver.Stmt
	conn  *conn
	query string
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if err := Check(Exec, s.query); err != nil {
		return nil, err
	}
	e, ok := s.Stmt.(driver.StmtExecContext)
	if !ok {
		return nil, errNoContext
	}
	return s.conn.write(ctx, s.query, func() (driver.Result, error) { return e.ExecContext(ctx, args) })
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if err := Check(Query, s.query); err != nil {
		return nil, err
	}
	q, ok := s.Stmt.(driver.StmtQueryContext)
	if !ok {
		return nil, errNoContext
	}
	var rows driver.Rows
	err := whileBusy(ctx, func() (err error) { rows, err = q.QueryContext(ctx, args); return err })
	return rows, s.conn.fail(err)
}
