package server

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

// The endpoints the web page reads besides search and history (docs/ui.md)
// take their options as the SQL functions do: one table of option specs
// (sqlfuncs.OptionSpec) per endpoint, whose identity options the grant
// binds as it binds a search's (docs/serve.md H2), so they show only what
// a search by the same token could.

// identitySpecs are the options of who asks: the caller and the options of
// session_visible (visibility, sandbox, agentToAgent and the grant's
// ceiling, docs/search.md Q22).
var identitySpecs = sqlfuncs.SearchOptionSpecs().Select(append([]string{"caller"}, sqlfuncs.VisibilityOptionSpecs().Names()...)...)

// readOptions binds the body's identity to the call's grant and decodes the
// body into dst, a pointer to a struct whose JSON names are those of specs
// (which must include identitySpecs). Errors are the 400s and 403s of
// search: the field, the value and the message of the option tables.
func readOptions(c *call, o object, specs sqlfuncs.OptionSpecs, dst any) *Error {
	bound, err := bindIdentity(o, "", c.grant)
	if err != nil {
		return err
	}
	if err := decodeOptions(o, bound, specs, dst); err != nil {
		return err
	}
	if c.grant == nil {
		if raw, ok := o.get("caller"); ok {
			var s string
			json.Unmarshal(raw, &s)
			setLogCaller(c.r, s)
		}
	}
	return nil
}

// decodeOptions decodes js, the JSON of body o (or of o with its identity
// bound), into dst by specs; an error names the field and o's value of it.
func decodeOptions(o object, js []byte, specs sqlfuncs.OptionSpecs, dst any) *Error {
	err := specs.Decode(string(js), dst)
	if err == nil {
		return nil
	}
	if e := requestError(err.Error(), o, "query"); e != nil {
		return e
	}
	return fail(http.StatusBadRequest, "invalid_field", "", nil, err.Error())
}

// value is the raw value of a member, nil when absent.
func (o object) value(name string) any {
	if raw, ok := o.get(name); ok {
		return raw
	}
	return nil
}

// withIdentity is specs with the identity options in front.
func withIdentity(specs ...sqlfuncs.OptionSpec) sqlfuncs.OptionSpecs {
	return append(slices.Clone(identitySpecs), specs...)
}

// visibilityJSON is the options of session_visible and sessions_searchable:
// the identity without the caller, which is their first argument.
func visibilityJSON(o sqlfuncs.Options) string {
	b, _ := json.Marshal(struct {
		sqlfuncs.Options
		Caller string `json:"caller,omitempty"`
	}{Options: o})
	return string(b)
}
