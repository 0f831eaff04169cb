package query

// Format selects how much an answer says.
type Format string

// Response formats.
const (
	Concise  Format = "concise"
	Detailed Format = "detailed"
)

func parseFormat(s string) (Format, error) {
	switch s {
	case "", "concise":
		return Concise, nil
	case "detailed":
		return Detailed, nil
	}
	return "", invalid("response_format", "must be concise or detailed (got %q)", s)
}
