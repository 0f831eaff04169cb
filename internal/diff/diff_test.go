package diff

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

const gitDiff = `diff --git a/a.go b/a.go
index 1111111..2222222 100644
--- a/a.go
+++ b/a.go
@@ -2,3 +2,3 @@ package a
 
-func F() int { return 1 }
+func F() int { return 2 }
 
@@ -10,0 +11,2 @@ func G() {
+// H is new.
+func H() {}
diff --git a/gone.go b/gone.go
deleted file mode 100644
index 3333333..0000000
--- a/gone.go
+++ /dev/null
@@ -1,2 +0,0 @@
-package a
-func Gone() {}
diff --git a/new.go b/new.go
new file mode 100644
--- /dev/null
+++ b/new.go
@@ -0,0 +1 @@
+package a
\ No newline at end of file
diff --git a/img.png b/img.png
Binary files a/img.png and b/img.png differ
diff --git a/old name.go b/new name.go
similarity index 100%
rename from old name.go
rename to new name.go
`

func TestParseGit(t *testing.T) {
	files, err := Parse([]byte(gitDiff))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.OldPath+" -> "+f.NewPath)
	}
	want := []string{"a.go -> a.go", "gone.go -> ", " -> new.go", "img.png -> img.png", "old name.go -> new name.go"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("files:\n got %q\nwant %q", got, want)
	}
	if !files[3].Binary {
		t.Error("img.png is not marked binary")
	}
	old, new := files[0].Changed()
	if want := []Range{{3, 3}, {11, 10}}; !reflect.DeepEqual(old, want) {
		t.Errorf("a.go old ranges %v, want %v", old, want)
	}
	if want := []Range{{3, 3}, {11, 12}}; !reflect.DeepEqual(new, want) {
		t.Errorf("a.go new ranges %v, want %v", new, want)
	}
	if l := files[2].Hunks[0].Lines[0]; !l.NoNewline || l.Text != "package a" {
		t.Errorf("new.go line %+v, want package a without newline", l)
	}
	old, new = files[1].Changed()
	if !reflect.DeepEqual(old, []Range{{1, 2}}) || !reflect.DeepEqual(new, []Range{{1, 0}}) {
		t.Errorf("gone.go ranges %v %v", old, new)
	}
}

func TestApplyBothWays(t *testing.T) {
	oldText := "package a\n\nfunc F() int { return 1 }\n\nfunc G() {}\n"
	newText := "package a\n\nfunc F() int { return 2 }\n\nfunc G() {}\n\n// H is new.\nfunc H() {}\n"
	d := `--- a/a.go
+++ b/a.go
@@ -3 +3 @@
-func F() int { return 1 }
+func F() int { return 2 }
@@ -5,0 +6,3 @@
+
+// H is new.
+func H() {}
`
	files, err := Parse([]byte(d))
	if err != nil {
		t.Fatal(err)
	}
	got, err := files[0].Apply([]byte(oldText), false)
	if err != nil || string(got) != newText {
		t.Fatalf("forward: %v\n%s", err, got)
	}
	back, err := files[0].Apply([]byte(newText), true)
	if err != nil || string(back) != oldText {
		t.Fatalf("reverse: %v\n%s", err, back)
	}
	if _, err := files[0].Apply([]byte(newText), false); !errors.Is(err, ErrNoMatch) {
		t.Fatalf("forward on the new side: %v, want ErrNoMatch", err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"@@ -1 +1 @@\n-a\n+b\n", "hunk before any file header"},
		{"--- a\n+++ b\n@@ -1,2 +1 @@\n-a\n+b\n", "hunk ends early"},
		{"--- a\n+++ b\n@@ -1 +1 @@\n-a\n+b\n+c\n", ""}, // a third line after the counts is not the hunk's
		{"--- a\n+++ b\n@@ -x +1 @@\n", "bad line number"},
		{"--- a\n+++ b\n@@ -1 +1\n", "no closing @@"},
		{"--- a\n+++ b\n@@ -1 +1 @@\n-a\nzzz\n", "hunk ends early"},
	} {
		_, err := Parse([]byte(tc.in))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

// FuzzParse feeds arbitrary bytes to Parse: it must not panic, every
// hunk it returns must hold the lines its header counts, and applying a
// file's hunks to their own old side must give their new side.
func FuzzParse(f *testing.F) {
	f.Add([]byte(gitDiff))
	f.Add([]byte("--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"))
	f.Add([]byte("--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		files, err := Parse(data)
		if err != nil {
			return
		}
		for _, fl := range files {
			for _, h := range fl.Hunks {
				var o, n int
				for _, l := range h.Lines {
					switch l.Op {
					case ' ':
						o++
						n++
					case '-':
						o++
					case '+':
						n++
					default:
						t.Fatalf("line op %q", l.Op)
					}
				}
				if o != h.OldLines || n != h.NewLines {
					t.Fatalf("hunk %+v holds %d old and %d new lines", h, o, n)
				}
			}
			old, new := fl.Changed()
			if len(old) != len(new) {
				t.Fatalf("changed ranges differ in number: %v %v", old, new)
			}
			// The old side the hunks describe, padded where they skip.
			var src bytes.Buffer
			line := 1
			ok := true
			for _, h := range fl.Hunks {
				at := h.OldStart
				if h.OldLines == 0 {
					at++
				}
				if at < line || at > 1<<12 {
					ok = false
					break
				}
				for ; line < at; line++ {
					src.WriteString("pad\n")
				}
				for _, l := range h.Lines {
					if l.Op != '+' {
						src.WriteString(l.Text + "\n")
						line++
					}
				}
			}
			if !ok {
				continue
			}
			if _, err := fl.Apply(src.Bytes(), false); err != nil && !errors.Is(err, ErrNoMatch) {
				t.Fatalf("apply: %v", err)
			}
		}
	})
}
