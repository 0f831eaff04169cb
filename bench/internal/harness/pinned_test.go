package harness

import "testing"

func TestAnswerMatches(t *testing.T) {
	also := []string{"Editor.edit", "src/v4/mini#lazy"}
	for _, c := range []struct {
		pkg, qn string
		want    bool
	}{
		{"src/click", "edit", true},
		{"src/click", "Editor.edit", true},
		{"src/v4/mini", "lazy", true},
		{"src/v4/mini", "edit", false}, // the answer's name, in another package
		{"src/click", "lazy", false},   // another package's answer, in this one
		{"examples/repo", "Editor.edit", false},
	} {
		if got := AnswerMatches("src/click", "edit", also, c.pkg, c.qn); got != c.want {
			t.Errorf("AnswerMatches(%s, %s) = %v, want %v", c.pkg, c.qn, got, c.want)
		}
	}
}
