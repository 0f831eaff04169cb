package scipindex

// functionValue reports whether the variable whose name is token i
// gives it a function: an arrow function or a function expression,
// after any type annotation ("cors = (options) => {…}"). Such a const is
// how most of a modern TypeScript API is written (hono's middleware),
// and scip-typescript calls it a variable: it is a function to its
// callers, its callees and a search in words.
//
// A variable whose initializer is anything else is not, even when its
// type is a function type (const parse: $Parse = _parse(Err)): what runs
// in the initializer runs once, when the module loads, not when the
// function is called.
func (t *tsTokens) functionValue(i int) bool {
	toks := t.toks
	// next is the token after k at its level, past what k opens.
	next := func(k int) int {
		if m := int(toks[k].match); m > k {
			return m + 1
		}
		return k + 1
	}
	// seek returns the first token from k at its level whose text is
	// text, or -1 where the statement or its bracket ends first.
	seek := func(k int, text string) int {
		for ; k < len(toks); k = next(k) {
			switch tk := toks[k]; {
			case tk.text == text:
				return k
			case tk.text == ";" || tk.text == "," || tk.match >= 0 && int(tk.match) < k:
				return -1
			}
		}
		return -1
	}
	is := func(k int, text string) bool { return k < len(toks) && toks[k].text == text }
	k := i + 1
	if is(k, "!") {
		k++
	}
	if is(k, ":") {
		if k = seek(k+1, "="); k < 0 {
			return false
		}
	}
	if !is(k, "=") {
		return false
	}
	k++
	if is(k, "async") {
		k++
	}
	if is(k, "function") {
		return true
	}
	// An arrow function: its type parameters, then its parameters (one
	// bare name, or a list), then its return type, then "=>".
	if is(k, "<") && toks[k].match > int32(k) {
		k = next(k)
	}
	switch {
	case is(k, "(") && toks[k].match > int32(k):
		k = next(k)
	case k < len(toks) && toks[k].ident:
		k++
	default:
		return false
	}
	if is(k, ":") {
		return seek(k+1, "=>") >= 0
	}
	return is(k, "=>")
}
