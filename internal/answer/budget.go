package answer

import "cmp"

// minBudget is the smallest budget a call may set: enough for the header
// and one row.
const minBudget = 150

// maxBudget bounds a list tool's budget: far more than a page of
// MaxLimit rows needs, and far from overflowing the characters it counts.
const maxBudget = 1000000

// CheckBudget accepts 0 (no budget) or minBudget to maxBudget tokens.
func CheckBudget(budget int) error {
	if budget != 0 && (budget < minBudget || budget > maxBudget) {
		return Invalid("budget", "must be from %d to %d tokens, or omitted for no budget (got %d)", minBudget, maxBudget, budget)
	}
	return nil
}

// BudgetIn is a budget parameter of a tool that always has one: budget
// tokens, def when omitted, refused outside lo to hi.
func BudgetIn(budget, def, lo, hi int) (int, error) {
	budget = cmp.Or(budget, def)
	if budget < lo || budget > hi {
		return 0, Invalid("budget", "must be from %d to %d tokens (got %d)", lo, hi, budget)
	}
	return budget, nil
}

// FitBudget returns the largest n in [1, rows] whose rendering render(n)
// fits budget tokens (4 characters each), or 1 when none does: an answer
// always makes progress.
func FitBudget(rows, budget int, render func(n int) string) int {
	limit := budget * 4
	if rows == 0 || len(render(rows)) <= limit {
		return rows
	}
	lo, hi := 1, rows // render(hi) is over; find the last n that fits
	for lo < hi {
		mid := (lo + hi) / 2
		if len(render(mid)) <= limit {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return max(1, lo-1)
}

// ApproxTokens estimates the tokens of s at about 4 bytes each.
func ApproxTokens(s string) int {
	return (len(s) + 3) / 4
}

// FitRows shows the largest number of a page's n rows whose answer's text
// fits budget tokens (all n without a budget), by show(k) then text().
func FitRows(n, budget int, show func(k int), text func() string) {
	fit := n
	if budget > 0 {
		fit = FitBudget(n, budget, func(k int) string {
			show(k)
			return text()
		})
	}
	show(fit)
}
