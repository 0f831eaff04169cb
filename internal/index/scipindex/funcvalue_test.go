package scipindex

import (
	"bytes"
	"testing"
)

// functionValueOf tokenizes text and asks functionValue of the first
// token that is name; false when none is.
func functionValueOf(text, name string) bool {
	t := tokenizeTS(bytes.Split([]byte(text), []byte("\n")), false)
	for i, tok := range t.toks {
		if tok.ident && tok.text == name {
			return t.functionValue(i)
		}
	}
	return false
}

func TestFunctionValue(t *testing.T) {
	for _, c := range []struct {
		text, name string
		want       bool
	}{
		{"cors = (options?: CORSOptions) => {\n  return async (c, next) => {}\n}", "cors", true},
		{"logger = (fn: PrintFunc = console.log): MiddlewareHandler => {", "logger", true},
		{"createMiddleware = <E extends Env = any, P extends string = string>(middleware: MiddlewareHandler<E, P>) => middleware", "createMiddleware", true},
		{"double = x => x * 2", "double", true},
		{"fetchAll = async (urls) => Promise.all(urls.map(fetch))", "fetchAll", true},
		{"load = async function (path) { return read(path) }", "load", true},
		{"handler = function named() {}", "handler", true},
		{"toJSON: (value: unknown) => string = (value) => JSON.stringify(value)", "toJSON", true},
		{"pick = (keys: string[]): { [k: string]: true } => Object.fromEntries(keys.map((k) => [k, true]))", "pick", true},
		{"check = (a = compute(1, 2)) => a > 0", "check", true},
		{"wrap = (s = \")\") => s", "wrap", true},

		// Not functions: the initializer is another expression.
		{"parse: $Parse = /* @__PURE__*/ _parse(errors.$ZodRealError)", "parse", false},
		{"safeParse: <T extends core.$ZodType>(schema: T, value: unknown) => Result<T> = core._safeParse(ZodRealError) as any", "safeParse", false},
		{"ERROR_MESSAGE = 'Payload Too Large'", "ERROR_MESSAGE", false},
		{"HEADERS_MAP: HeadersMap = {\n  crossOriginEmbedderPolicy: ['Cross-Origin-Embedder-Policy', 'require-corp'],\n}", "HEADERS_MAP", false},
		{"total = (a + b) * c", "total", false},
		{"run = compose(a, b)", "run", false},
		{"asyncResult = asyncWork()", "asyncResult", false},
		{"functions = []", "functions", false},
		{"count: number", "count", false},
		{"corsOptions = (o) => o", "cors", false}, // another name
	} {
		if got := functionValueOf(c.text, c.name); got != c.want {
			t.Errorf("functionValue(%q, %q) = %v, want %v", c.text, c.name, got, c.want)
		}
	}
}

// The declarator is found in the declaration's text: the name's token.
func TestFunctionValueDeclarator(t *testing.T) {
	for _, c := range []struct {
		text, name string
		want       bool
	}{
		{"cors = () => {}", "cors", true},
		{"export const cors = () => {}", "cors", true},
		{"export const corsy = 1, cors = () => {}", "cors", true},
		{"export const x = 1", "cors", false},
	} {
		if got := functionValueOf(c.text, c.name); got != c.want {
			t.Errorf("functionValue(%q, %q) = %v, want %v", c.text, c.name, got, c.want)
		}
	}
}
