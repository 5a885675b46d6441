package extension

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime/cgo"
	"unsafe"

	"github.com/sessionsearch/sessionsearch/store"
)

// SQLite datatypes (sqlite3_value_type).
const (
	typeInteger = 1
	typeFloat   = 2
	typeText    = 3
	typeBlob    = 4
	typeNull    = 5
)

// call is one invocation of an SQL function.
type call struct {
	ctx   *C.sqlite3_context
	args  []*C.sqlite3_value
	read  []C.ss_arg // the first arguments, read by the C side (bridge.h)
	name  string
	state *connState
}

// valueType is sqlite3_value_type of argument i.
func (c *call) valueType(i int) C.int {
	if i < len(c.read) {
		return c.read[i]._type
	}
	return C.ss_value_type(c.args[i])
}

func (c *call) isNull(i int) bool { return i >= len(c.args) || c.valueType(i) == typeNull }
func (c *call) isText(i int) bool { return i < len(c.args) && c.valueType(i) == typeText }

// textArg returns the text the C side read of argument i, if it did.
func (c *call) textArg(i int) (p *C.uchar, n C.int, ok bool) {
	if i < len(c.read) && c.read[i]._type == typeText {
		return c.read[i].p, c.read[i].n, true
	}
	return nil, 0, false
}

// typeName is SQLite's typeof() of argument i.
func (c *call) typeName(i int) string {
	switch c.valueType(i) {
	case typeInteger:
		return "integer"
	case typeFloat:
		return "real"
	case typeText:
		return "text"
	case typeBlob:
		return "blob"
	}
	return "null"
}

// text returns argument i as text (NULL gives "").
func (c *call) text(i int) string {
	if c.isNull(i) {
		return ""
	}
	p, n, ok := c.textArg(i)
	if !ok {
		p = C.ss_value_text(c.args[i], &n)
	}
	if p == nil {
		return ""
	}
	return C.GoStringN((*C.char)(unsafe.Pointer(p)), n)
}

// textBytes returns argument i as text without copying it: valid only until
// the function returns.
func (c *call) textBytes(i int) []byte {
	if c.isNull(i) {
		return nil
	}
	p, n, ok := c.textArg(i)
	if !ok {
		p = C.ss_value_text(c.args[i], &n)
	}
	if p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n))
}

// int returns argument i as an integer, or an error naming the function
// when it is not one.
func (c *call) int(i int, what string) (int64, error) {
	if i < len(c.read) {
		switch a := &c.read[i]; a._type {
		case typeInteger:
			return int64(a.i), nil
		case typeFloat:
			if f := float64(a.d); f == float64(int64(f)) {
				return int64(f), nil
			}
		}
		return 0, fmt.Errorf("%s must be an integer, got %s", what, c.describe(i))
	}
	switch C.ss_value_type(c.args[i]) {
	case typeInteger:
		return int64(C.ss_value_int64(c.args[i])), nil
	case typeFloat:
		f := float64(C.ss_value_double(c.args[i]))
		if f == float64(int64(f)) {
			return int64(f), nil
		}
	}
	return 0, fmt.Errorf("%s must be an integer, got %s", what, c.describe(i))
}

// describe renders argument i for an error message.
func (c *call) describe(i int) string {
	switch c.valueType(i) {
	case typeNull:
		return "NULL"
	case typeText:
		s := c.text(i)
		if len(s) > 40 {
			s = s[:40] + "..."
		}
		return fmt.Sprintf("%q", s)
	case typeBlob:
		return "a blob"
	}
	return c.text(i)
}

func (c *call) resultText(s string) {
	C.ss_result_text(c.ctx, (*C.char)(unsafe.Pointer(unsafe.StringData(s))), C.int(len(s)))
}

func (c *call) resultBytes(b []byte) {
	if len(b) == 0 {
		c.resultText("")
		return
	}
	C.ss_result_text(c.ctx, (*C.char)(unsafe.Pointer(&b[0])), C.int(len(b)))
}

// resultBlob returns b as a BLOB (an empty one for empty b).
func (c *call) resultBlob(b []byte) {
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	C.ss_result_blob(c.ctx, p, C.int(len(b)))
}

func (c *call) resultInt(v int64) { C.ss_result_int64(c.ctx, C.sqlite3_int64(v)) }
func (c *call) resultNull()       { C.ss_result_null(c.ctx) }

// resultArg returns argument i unchanged, without copying it through Go.
func (c *call) resultArg(i int) { C.ss_result_value(c.ctx, c.args[i]) }

func (c *call) resultError(err error) {
	msg := err.Error()
	code := sqliteError
	var se *sqliteErr
	if errors.As(err, &se) && se.code != 0 {
		code = se.code
	}
	C.ss_result_error(c.ctx, (*C.char)(unsafe.Pointer(unsafe.StringData(msg))), C.int(len(msg)), C.int(code))
}

// auxdata returns the Go value cached on argument i for the rest of the
// statement (sqlite3_get_auxdata), or nil.
func (c *call) auxdata(i int) any {
	p := C.ss_get_auxdata(c.ctx, C.int(i))
	if p == nil {
		return nil
	}
	return cgo.Handle(*(*C.uintptr_t)(p)).Value()
}

func (c *call) setAuxdata(i int, v any) {
	C.ss_set_auxdata(c.ctx, C.int(i), C.uintptr_t(cgo.NewHandle(v)))
}

func (c *call) conn() conn { return conn{C.ss_context_db(c.ctx)} }

// conn runs SQL on the connection that called the function, inside its
// transaction.
type conn struct{ db *C.sqlite3 }

// sqliteErr is an error from SQLite with its result code.
type sqliteErr struct {
	code int
	msg  string
}

func (e *sqliteErr) Error() string { return e.msg }

// Code is SQLite's result code (store.Refused reads it).
func (e *sqliteErr) Code() int { return e.code }

// version changes whenever the database may have changed: a commit by any
// connection, or a change by this one inside its transaction.
func (c conn) version() [2]int64 {
	return [2]int64{int64(C.ss_data_version(c.db)), int64(C.ss_total_changes(c.db))}
}

func (c conn) errorf(rc C.int, format string, args ...any) error {
	return &sqliteErr{code: int(rc), msg: fmt.Sprintf(format, args...) + ": " + C.GoString(C.ss_errmsg(c.db))}
}

type stmt struct {
	c      conn
	s      *C.sqlite3_stmt
	inUse  bool             // a kept statement that a call is running (keptStatement)
	params map[string]C.int // named parameters' indexes, as bind looks them up
	// Run's arguments, as ss_run takes them: reused from run to run.
	runArgs []C.ss_runarg
	runBuf  []byte
}

// release makes a kept statement ready for the next call.
func (s *stmt) release() {
	C.ss_reset(s.s)
	C.ss_clear_bindings(s.s)
	s.inUse = false
}

func (c conn) prepare(sql string) (*stmt, error) {
	var s *C.sqlite3_stmt
	var msg *C.char
	rc := C.ss_prepare(c.db, (*C.char)(unsafe.Pointer(unsafe.StringData(sql))), C.int(len(sql)), &s, &msg)
	if rc != sqliteOK {
		return nil, &sqliteErr{code: int(rc), msg: C.GoString(msg)}
	}
	return &stmt{c: c, s: s}, nil
}

// named binds values to named parameters (":name"), as the only argument
// of bind.
type named map[string]any

// bind binds args to the parameters ?1, ?2, ..., or a named to its names.
func (s *stmt) bind(args ...any) error {
	if len(args) == 1 {
		if m, ok := args[0].(named); ok {
			for name, v := range m {
				i := s.paramIndex(name)
				if i == 0 {
					return fmt.Errorf("bind: no parameter %s", name)
				}
				if err := s.bindAt(int(i), v); err != nil {
					return err
				}
			}
			return nil
		}
	}
	for i, a := range args {
		if err := s.bindAt(i+1, a); err != nil {
			return err
		}
	}
	return nil
}

// paramIndex returns the index of a named parameter, 0 if s has none of
// that name; a kept statement looks each name up once.
func (s *stmt) paramIndex(name string) C.int {
	if i, ok := s.params[name]; ok {
		return i
	}
	cname := C.CString(name)
	i := C.ss_bind_parameter_index(s.s, cname)
	C.free(unsafe.Pointer(cname))
	if s.params == nil {
		s.params = map[string]C.int{}
	}
	s.params[name] = i
	return i
}

func (s *stmt) bindAt(i int, a any) error {
	n := C.int(i)
	var rc C.int
	switch v := a.(type) {
	case nil:
		rc = C.ss_bind_null(s.s, n)
	case string:
		rc = C.ss_bind_text(s.s, n, (*C.char)(unsafe.Pointer(unsafe.StringData(v))), C.int(len(v)))
	case []byte:
		var p *C.char
		if len(v) > 0 {
			p = (*C.char)(unsafe.Pointer(&v[0]))
		}
		rc = C.ss_bind_text(s.s, n, p, C.int(len(v)))
	case store.Blob:
		var p unsafe.Pointer
		if len(v) > 0 {
			p = unsafe.Pointer(&v[0])
		}
		rc = C.ss_bind_blob(s.s, n, p, C.int(len(v)))
	case int:
		rc = C.ss_bind_int64(s.s, n, C.sqlite3_int64(v))
	case int64:
		rc = C.ss_bind_int64(s.s, n, C.sqlite3_int64(v))
	case float64:
		rc = C.ss_bind_double(s.s, n, C.double(v))
	case bool:
		rc = C.ss_bind_int64(s.s, n, C.sqlite3_int64(boolInt(v)))
	default:
		panic(fmt.Sprintf("bind: unsupported type %T", a))
	}
	if rc != sqliteOK {
		return s.c.errorf(rc, "bind %d", i)
	}
	return nil
}

// step advances to the next row; false at the end.
func (s *stmt) step() (bool, error) {
	switch rc := C.ss_step(s.s); rc {
	case 100: // SQLITE_ROW
		return true, nil
	case 101: // SQLITE_DONE
		return false, nil
	default:
		C.ss_reset(s.s)
		return false, &sqliteErr{code: int(rc), msg: C.GoString(C.ss_errmsg(s.c.db))}
	}
}

// conn and stmt are the store's Conn, Row and Stmt: the one way the
// extension runs SQL.
var (
	_ store.Conn = conn{}
	_ store.Row  = (*stmt)(nil)
	_ store.Stmt = (*stmt)(nil)
)

// Exec runs sql with args to completion.
func (c conn) Exec(sql string, args ...any) error {
	return c.Query(sql, func(store.Row) error { return nil }, args...)
}

// Query runs sql with args and calls row for each result row.
func (c conn) Query(sql string, row func(store.Row) error, args ...any) error {
	s, err := c.prepare(sql)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.each(row, args...)
}

func (c conn) Prepare(sql string) (store.Stmt, error) {
	s, err := c.prepare(sql)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Run binds args and runs the statement to completion, ready to run again,
// in one call into C (ss_run): text and blobs are copied once into the
// statement's buffer and bound from there, where SQLite would copy each
// into memory of its own.
func (s *stmt) Run(args ...any) error {
	s.runArgs, s.runBuf = s.runArgs[:0], s.runBuf[:0]
	for _, a := range args {
		var r C.ss_runarg
		switch v := a.(type) {
		case nil:
			r._type = typeNull
		case string:
			r._type, r.i, r.n = typeText, C.sqlite3_int64(len(s.runBuf)), C.int(len(v))
			s.runBuf = append(s.runBuf, v...)
		case []byte:
			r._type, r.i, r.n = typeText, C.sqlite3_int64(len(s.runBuf)), C.int(len(v))
			s.runBuf = append(s.runBuf, v...)
		case store.Blob:
			r._type, r.i, r.n = typeBlob, C.sqlite3_int64(len(s.runBuf)), C.int(len(v))
			s.runBuf = append(s.runBuf, v...)
		case int:
			r._type, r.i = typeInteger, C.sqlite3_int64(v)
		case int64:
			r._type, r.i = typeInteger, C.sqlite3_int64(v)
		case float64:
			r._type, r.d = typeFloat, C.double(v)
		case bool:
			r._type, r.i = typeInteger, C.sqlite3_int64(boolInt(v))
		default:
			panic(fmt.Sprintf("bind: unsupported type %T", a))
		}
		s.runArgs = append(s.runArgs, r)
	}
	var argp *C.ss_runarg
	if len(s.runArgs) > 0 {
		argp = &s.runArgs[0]
	}
	var base *C.char
	if len(s.runBuf) > 0 {
		base = (*C.char)(unsafe.Pointer(&s.runBuf[0]))
	}
	if rc := C.ss_run(s.s, C.int(len(s.runArgs)), argp, base); rc != sqliteOK {
		return &sqliteErr{code: int(rc), msg: C.GoString(C.ss_errmsg(s.c.db))}
	}
	if cap(s.runBuf) > maxRunBuf {
		s.runBuf = nil // a huge event's buffer is not kept
	}
	return nil
}

// maxRunBuf is the largest buffer a statement keeps for its next Run.
const maxRunBuf = 1 << 20

// Query binds args, runs the statement, calls row for each result row and
// leaves it ready to run again.
func (s *stmt) Query(row func(store.Row) error, args ...any) error {
	defer C.ss_reset(s.s)
	return s.each(row, args...)
}

func (s *stmt) each(row func(store.Row) error, args ...any) error {
	if err := s.bind(args...); err != nil {
		return err
	}
	for {
		more, err := s.step()
		if err != nil || !more {
			return err
		}
		if err := row(s); err != nil {
			return err
		}
	}
}

func (s *stmt) Close() { C.ss_finalize(s.s) }

func (s *stmt) IsNull(i int) bool { return C.ss_column_type(s.s, C.int(i)) == typeNull }

func (s *stmt) Text(i int) string {
	var n C.int
	p := C.ss_column_text(s.s, C.int(i), &n)
	if p == nil {
		return ""
	}
	return C.GoStringN((*C.char)(unsafe.Pointer(p)), n)
}

func (s *stmt) Int(i int) int64     { return int64(C.ss_column_int64(s.s, C.int(i))) }
func (s *stmt) Float(i int) float64 { return float64(C.ss_column_double(s.s, C.int(i))) }
