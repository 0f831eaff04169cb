package query

import "github.com/sextant-dev/sextant/internal/answer"

// The paging helpers of the answer package, under the names the tools use.
var (
	fingerprint  = answer.Fingerprint
	decodeCursor = answer.DecodeCursor
	pageLimit    = answer.PageLimit
	writePaging  = answer.WritePaging
	writeMore    = answer.WriteMore
)

// The budget helpers of the answer package, under the names the tools use.
var (
	checkBudget  = answer.CheckBudget
	budgetIn     = answer.BudgetIn
	fitBudget    = answer.FitBudget
	approxTokens = answer.ApproxTokens
	fitRows      = answer.FitRows
)

// invalid is the INVALID_ARGUMENT error of a field; asError finds the
// coded error in a chain (see the answer package).
var (
	invalid = answer.Invalid
	asError = answer.AsError
)
