package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// MaxWatermarkKeys is the most sessions one watermarks request may ask about.
const MaxWatermarkKeys = 1000

// Watermark is how far the service holds one session: a pushing client
// resumes each session at NextSeq (docs/serve.md H12).
type Watermark struct {
	SessionKey string `json:"sessionKey"`
	Exists     bool   `json:"exists"`
	NextSeq    int64  `json:"nextSeq"` // 0 for a session that does not exist
}

// WatermarksResult is the answer of POST /v1/watermarks, in the order asked.
type WatermarksResult struct {
	Sessions []Watermark `json:"sessions"`
}

// watermarks answers POST /v1/watermarks {"sessionKeys":[…]}. It needs a
// write token: it says which sessions exist, whatever their visibility.
func (h *Handler) watermarks(ctx context.Context, c *call) ([]byte, int, *Error) {
	o, err := readObject(c.r)
	if err != nil {
		return nil, 0, err
	}
	var keys []string
	for _, m := range o {
		if m.name != "sessionKeys" {
			return nil, 0, unknownField(m.name, "sessionKeys")
		}
		if m.value[0] != '[' || json.Unmarshal(m.value, &keys) != nil {
			return nil, 0, fail(http.StatusBadRequest, "invalid_field", "sessionKeys", m.value, `"sessionKeys" must be an array of session keys`)
		}
	}
	if len(keys) == 0 || len(keys) > MaxWatermarkKeys {
		return nil, 0, fail(http.StatusBadRequest, "invalid_field", "sessionKeys", len(keys),
			fmt.Sprintf(`"sessionKeys" must list 1..%d session keys, got %d`, MaxWatermarkKeys, len(keys)))
	}
	res := WatermarksResult{Sessions: make([]Watermark, len(keys))}
	for i, k := range keys {
		w := Watermark{SessionKey: k}
		if dbErr := h.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sessions WHERE session_key = ?1),
			(SELECT coalesce(max(seq) + 1, 0) FROM transcript_events WHERE session_key = ?1)`, k).Scan(&w.Exists, &w.NextSeq); dbErr != nil {
			return nil, 0, h.dbError(ctx, dbErr)
		}
		res.Sessions[i] = w
	}
	body, _ := json.Marshal(res)
	return body, http.StatusOK, nil
}
