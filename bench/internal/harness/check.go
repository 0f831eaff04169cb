package harness

import "fmt"

// Check is one figure judged against its target.
type Check struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Limit  float64 `json:"limit"`
	Unit   string  `json:"unit"` // "x" (a ratio), "ms" or "MiB"
	Pass   bool    `json:"pass"`
	Detail string  `json:"detail,omitempty"` // the figures a ratio is made of
}

// AtMost judges value against an upper limit.
func AtMost(name string, value, limit float64, unit, detail string) Check {
	return Check{Name: name, Value: value, Limit: limit, Unit: unit, Pass: value <= limit, Detail: detail}
}

// Verdict is PASS, or MISS with how far over the limit the value is.
func (c Check) Verdict() string {
	if c.Pass {
		return "PASS"
	}
	if c.Limit <= 0 {
		return "MISS"
	}
	return fmt.Sprintf("MISS (+%.0f%%)", 100*(c.Value/c.Limit-1))
}

// Format renders a value in the check's unit.
func (c Check) Format(v float64) string {
	switch c.Unit {
	case "x":
		return fmt.Sprintf("%.2f×", v)
	case "ms":
		if v < 10 {
			return fmt.Sprintf("%.2f ms", v)
		}
		return fmt.Sprintf("%.1f ms", v)
	case "MiB":
		return fmt.Sprintf("%.0f MiB", v)
	}
	return fmt.Sprintf("%g %s", v, c.Unit)
}
