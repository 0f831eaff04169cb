package main

import "testing"

func TestWithoutDoc(t *testing.T) {
	for _, c := range []struct{ name, src, doc, want string }{
		{"go: the doc is above the declaration",
			"func confirm() bool {\n\treturn true\n}", "Confirm asks for confirmation.",
			"func confirm() bool {\n\treturn true\n}"},
		{"python: a docstring of one line",
			"def confirm():\n    \"\"\"prompts for confirmation.\"\"\"\n    return true", "Prompts for confirmation.",
			"def confirm():\n    return true"},
		{"python: a docstring of several lines, dedented in the doc",
			"def clear():\n    \"\"\"clears the terminal screen.\n\n    works on windows too.\n    \"\"\"\n    pass", "Clears the terminal screen.\n\nWorks on Windows too.",
			"def clear():\n\n    \"\"\"\n    pass"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := withoutDoc(c.src, c.doc); got != c.want {
				t.Errorf("withoutDoc = %q, want %q", got, c.want)
			}
		})
	}
}
