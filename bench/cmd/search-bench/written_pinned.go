package main

import "github.com/sextant-dev/sextant/bench/internal/harness"

// Packages of the pinned corpora, as their index names them: paths in
// the checkout's root.
const (
	clickPkg   = "src/click"
	zodClassic = "src/v4/classic"
	zodCore    = "src/v4/core"
)

// writtenPinned are the written questions about the TypeScript and
// Python corpora, by repository, each answer found by reading the code
// at the pinned commit. They were written before search_code was asked
// any of them, and no ranking was tuned on them: both corpora are
// measured.
var writtenPinned = map[string][]writtenQuestion{
	harness.Click.Repo: {
		{clickPkg, "where are an option's environment variables read", "Option.resolve_envvar_value|Parameter.resolve_envvar_value|Option.value_from_envvar|Parameter.value_from_envvar"},
		{clickPkg, "ask the user a yes or no question", "confirm"},
		{clickPkg, "show long output through a pager like less", "echo_via_pager|get_pager_file|_pipepager"},
		{clickPkg, "remove ansi color codes from a string", "unstyle|strip_ansi"},
		{clickPkg, "print colored text to the terminal", "secho|style"},
		{clickPkg, "open the user's text editor to write a message", "edit|Editor.edit"},
		{clickPkg, "open a url in the web browser", "launch|open_url"},
		{clickPkg, "read a single key press from the terminal", "getchar"},
		{clickPkg, "clear the terminal screen", "clear"},
		{clickPkg, "directory where an application keeps its configuration", "get_app_dir"},
		{clickPkg, "run a command in a test and capture its output", "CliRunner.invoke"},
		{clickPkg, "temporary working directory for a test", "CliRunner.isolated_filesystem"},
		{clickPkg, "restrict an integer option to a range", "IntRange"},
		{clickPkg, "option value that must be one of a fixed set of strings", "Choice"},
		{clickPkg, "parse a date given on the command line", "DateTime|DateTime.convert"},
		{clickPkg, "look up a subcommand of a group by its name", "Group.get_command|Group.resolve_command"},
		{clickPkg, "register a subcommand on a group", "Group.add_command"},
		{clickPkg, "split a command line string into arguments like a shell does", "split_arg_string"},
		{clickPkg, "get the root context of nested commands", "Context.find_root"},
		{clickPkg, "run cleanup when the context is torn down", "Context.call_on_close|Context.with_resource"},
		{clickPkg, "build the help page text of a command", "Command.get_help|Command.format_help"},
		{clickPkg, "wrap help text to a width", "wrap_text|HelpFormatter.write_text"},
		{clickPkg, "did a parameter's value come from the command line, the environment or a default", "Context.get_parameter_source|ParameterSource"},
		{clickPkg, "fail with a usage error message", "Context.fail|UsageError"},
		{clickPkg, "prompt for a password with hidden input", "password_option|prompt"},
		{clickPkg, "progress bar for a long loop", "progressbar|ProgressBar"},
		{clickPkg, "write a file atomically", "open_file|_AtomicFile|open_stream"},
		{clickPkg, "name of the program shown in usage", "_detect_program_name|Context.command_path"},
		{clickPkg, "expand wildcards in arguments on windows", "_expand_args"},
		{clickPkg, "add a --version option", "version_option"},
		{clickPkg, "pass the context object into a command callback", "pass_context|pass_obj"},
		{clickPkg, "exception for an option that does not exist", "NoSuchOption"},
	},
	harness.Zod.Repo: {
		{zodCore, "turn validation errors into a readable multi-line message", "prettifyError"},
		{zodCore, "nested tree of errors from a failed parse", "treeifyError|formatError"},
		{zodCore, "flatten errors into form errors and field errors", "flattenError"},
		{zodCore, "convert a zod schema to JSON Schema", "toJSONSchema"},
		{zodClassic, "build a zod schema from a JSON Schema document", "fromJSONSchema"},
		{zodClassic, "union where exactly one option may match", "xor"},
		{zodClassic, "union that picks its member by a tag field", "discriminatedUnion|src/v4/mini#discriminatedUnion"},
		{zodClassic, "object schema that rejects unknown keys", "strictObject|src/v4/mini#strictObject"},
		{zodClassic, "object schema that keeps unknown keys", "looseObject|src/v4/mini#looseObject"},
		{zodClassic, "validate an email address", "email|ZodEmail|src/v4/mini#email"},
		{zodClassic, "schema for a recursive type defined lazily", "lazy"},
		{zodClassic, "change the input before it is validated", "preprocess"},
		{zodClassic, "custom validation with a predicate and a message", "refine|superRefine|check|ZodType.refine"},
		{zodCore, "escape special characters for a regular expression", "escapeRegex"},
		{zodCore, "encode bytes as base64", "uint8ArrayToBase64|uint8ArrayToBase64url"},
		{zodCore, "read the value at a path in a nested object", "getElementAtPath"},
		{zodCore, "make a url slug from a string", "slugify"},
		{zodCore, "registry of metadata attached to schemas", "registry|globalRegistry|$ZodRegistry"},
		{zodCore, "configure zod globally, for example the locale of error messages", "config"},
		{zodCore, "parse without throwing, returning success or the error", "safeParse|src/v4/classic#safeParse|src/v4/classic#ZodType.safeParse"},
		{zodClassic, "string that must be an IPv4 address", "ipv4|ZodIPv4|src/v4/mini#ipv4"},
		{zodClassic, "check a JSON web token", "jwt|ZodJWT|src/v4/mini#jwt"},
		{zodClassic, "phone number in E.164 format", "e164|ZodE164|src/v4/mini#e164"},
		{zodCore, "copy a schema with a changed definition", "clone"},
		{zodClassic, "which JSON Schema draft does a document use", "detectVersion"},
		{zodClassic, "resolve a $ref inside a JSON Schema", "resolveRef"},
		{zodClassic, "remove keys from an object schema", "ZodObject.omit|src/v4/core#omit|src/v4/mini#omit"},
		{zodClassic, "make every key of an object schema optional", "ZodObject.partial|src/v4/core#partial|src/v4/mini#partial"},
	},
}
