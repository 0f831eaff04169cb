package query

import "github.com/sextant-dev/sextant/internal/answer"

// The helpers of the answer package, under the names the tools use: paging
// (fingerprint to writeMore), budgets (checkBudget to fitRows), and the
// INVALID_ARGUMENT error of a field (invalid) with the finder of a coded
// error in a chain (asError).
var (
	fingerprint  = answer.Fingerprint
	decodeCursor = answer.DecodeCursor
	pageLimit    = answer.PageLimit
	writePaging  = answer.WritePaging
	writeMore    = answer.WriteMore

	checkBudget  = answer.CheckBudget
	budgetIn     = answer.BudgetIn
	fitBudget    = answer.FitBudget
	approxTokens = answer.ApproxTokens
	fitRows      = answer.FitRows

	invalid = answer.Invalid
	asError = answer.AsError
)
