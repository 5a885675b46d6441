package guard

import (
	"context"
	"database/sql/driver"
	"errors"
)

// Connector wraps c, a dqlite driver's connector, so that every statement
// passes Check for the path it is sent on before it reaches the cluster
// (docs/cluster.md K1, K2, K4). Use it with sql.OpenDB.
func Connector(c driver.Connector) driver.Connector { return &connector{c} }

type connector struct{ inner driver.Connector }

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	inner, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{inner}, nil
}

func (c *connector) Driver() driver.Driver { return c.inner.Driver() }

type conn struct{ driver.Conn }

var errNoContext = errors.New("dqlite guard: the dqlite driver lacks a context method")

func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	p, ok := c.Conn.(driver.ConnPrepareContext)
	if !ok {
		return nil, errNoContext
	}
	s, err := p.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return &stmt{Stmt: s, query: query}, nil
}

func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if err := Check(Exec, query); err != nil {
		return nil, err
	}
	e, ok := c.Conn.(driver.ExecerContext)
	if !ok {
		return nil, errNoContext
	}
	return e.ExecContext(ctx, query, args)
}

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if err := Check(Query, query); err != nil {
		return nil, err
	}
	q, ok := c.Conn.(driver.QueryerContext)
	if !ok {
		return nil, errNoContext
	}
	return q.QueryContext(ctx, query, args)
}

func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	b, ok := c.Conn.(driver.ConnBeginTx)
	if !ok {
		return nil, errNoContext
	}
	return b.BeginTx(ctx, opts)
}

// ResetSession and IsValid pass database/sql's pool checks through.
func (c *conn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *conn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

type stmt struct {
	driver.Stmt
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
	return e.ExecContext(ctx, args)
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if err := Check(Query, s.query); err != nil {
		return nil, err
	}
	q, ok := s.Stmt.(driver.StmtQueryContext)
	if !ok {
		return nil, errNoContext
	}
	return q.QueryContext(ctx, args)
}
