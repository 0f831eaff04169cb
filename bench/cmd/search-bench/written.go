package main

import "strings"

// Module paths of the measured modules, as the written questions name
// their packages.
const (
	retry   = "github.com/hashicorp/go-retryablehttp"
	chi     = "github.com/go-chi/chi/v5"
	chiMW   = "github.com/go-chi/chi/v5/middleware"
	logrus  = "github.com/sirupsen/logrus"
	cli     = "github.com/urfave/cli/v2"
	gin     = "github.com/gin-gonic/gin"
	fsnotif = "github.com/fsnotify/fsnotify"
)

// Module paths of the tuning modules.
const (
	cobra    = "github.com/spf13/cobra"
	cobraDoc = "github.com/spf13/cobra/doc"
	pflag    = "github.com/spf13/pflag"
	toml     = "github.com/BurntSushi/toml"
	mux      = "github.com/gorilla/mux"
)

// written are questions asked the way an agent asks them, about the
// tuning modules (cobra's are the context bench's) and the measured
// ones, each with its answers found by reading the code:
// the package and the qualified names of the declarations that do it
// (any of them counts), separated by "|". They were written from the
// code, not from search_code's answers, and before any ranking change
// was measured on them.
var written = []writtenQuestion{
	{cobra, "add a sub command to a command", "Command.AddCommand"},
	{cobra, "mark a flag as required", "Command.MarkFlagRequired|MarkFlagRequired"},
	{cobra, "accept exactly n positional args", "ExactArgs"},
	{cobra, "suggest commands for a mistyped name", "Command.SuggestionsFor"},
	{cobra, "find the subcommand that matches the arguments", "Command.Find"},
	{cobraDoc, "generate markdown documentation for a command tree", "GenMarkdownTree|GenMarkdown"},
	{cobraDoc, "generate man pages", "GenManTree|GenMan"},
	{cobra, "levenshtein edit distance", "ld"},
	{cobra, "flags that cannot be used together", "Command.MarkFlagsMutuallyExclusive"},
	{cobra, "add the default version flag", "Command.InitDefaultVersionFlag"},
	{cobra, "add the default help command", "Command.InitDefaultHelpCmd"},
	{cobra, "fish shell completion script", "Command.GenFishCompletion|genFishComp"},
	{cobra, "powershell completion", "Command.GenPowerShellCompletion|genPowerShellComp"},
	{cobra, "only arguments listed in ValidArgs", "OnlyValidArgs"},
	{cobra, "full command path from the root", "Command.CommandPath"},
	{cobra, "execute the root command and return the command that ran", "Command.ExecuteC"},
	{pflag, "parse a --long flag and its value", "FlagSet.parseLongArg"},
	{pflag, "parse several short flags combined like -abc", "FlagSet.parseSingleShortArg|FlagSet.parseShortArg"},
	{pflag, "hide a flag from the help output", "FlagSet.MarkHidden"},
	{pflag, "usage text of all flags wrapped to a width", "FlagSet.FlagUsagesWrapped|wrap|wrapN"},
	{pflag, "is a flag's default the zero value of its type", "Flag.defaultIsZeroValue"},
	{pflag, "find a flag by its one letter shorthand", "FlagSet.ShorthandLookup|ShorthandLookup"},
	{pflag, "stop parsing flags at the first argument that is not a flag", "FlagSet.SetInterspersed|SetInterspersed"},
	{pflag, "convert a standard library flag to this package's flag", "PFlagFromGoFlag|FlagSet.AddGoFlagSet"},
	{pflag, "did the user set this flag on the command line", "FlagSet.Changed"},
	{mux, "match a request against the registered routes", "Router.Match|Route.Match"},
	{mux, "path variables of the current request", "Vars"},
	{mux, "clean . and .. elements out of a url path", "cleanPath"},
	{mux, "respond 405 method not allowed", "methodNotAllowed|methodNotAllowedHandler"},
	{mux, "match requests by http method", "Route.Methods|Router.Methods|methodMatcher.Match"},
	{mux, "visit every registered route", "Router.Walk|Router.walk"},
	{toml, "encode a go struct as toml", "Encoder.Encode|Marshal|Encoder.eStruct"},
	{toml, "read a toml file into a go value", "DecodeFile"},
	{toml, "keys that were not decoded into the value", "MetaData.Undecoded"},
	{toml, "lexer state for the top level of a document", "lexTop"},
	{toml, "write a key and its value", "Encoder.writeKeyValue"},
	// More on the tuning modules, written from their code on 2026-12-06
	// before any ranking change was measured on them, so that a fitted
	// ranking has more than 36 written questions to learn from.
	{cobra, "run code before every command executes", "OnInitialize|Command.preRun"},
	{cobra, "remove a subcommand from its parent", "Command.RemoveCommand"},
	{cobra, "print usage when the user gives invalid input", "Command.Usage|Command.UsageFunc|defaultUsageFunc"},
	{cobra, "the name or alias the user typed to invoke the command", "Command.CalledAs"},
	{cobra, "check that all required flags were passed", "Command.ValidateRequiredFlags"},
	{cobra, "bash completion script written to a writer", "Command.GenBashCompletionV2|Command.GenBashCompletion"},
	{cobra, "flags inherited from parent commands", "Command.InheritedFlags"},
	{cobra, "parse the persistent and local flags of a command", "Command.ParseFlags"},
	{cobra, "compare two command names ignoring case", "commandNameMatches"},
	{cobra, "add a group to organize subcommands in help", "Command.AddGroup"},
	{cobra, "print an error and exit with status 1", "CheckErr"},
	{cobra, "accept between a minimum and maximum number of args", "RangeArgs"},
	{cobra, "completion function that always returns the same values", "FixedCompletions"},
	{cobraDoc, "yaml docs for the command tree", "GenYamlTree|GenYamlTreeCustom|GenYaml"},
	{cobra, "print debug messages from shell completion", "CompDebug|CompDebugln"},
	{pflag, "number of flags that were set", "FlagSet.NFlag|NFlag"},
	{pflag, "mark a flag deprecated with a message", "FlagSet.MarkDeprecated"},
	{pflag, "get the string value of a flag by name", "FlagSet.GetString"},
	{pflag, "look up a flag by its name", "FlagSet.Lookup|Lookup|FlagSet.lookup"},
	{pflag, "remaining arguments after the flags were parsed", "FlagSet.Args|Args"},
	{pflag, "merge one flag set into another", "FlagSet.AddFlagSet"},
	{pflag, "define a string flag with a one-letter shorthand", "StringP|FlagSet.StringP|StringVarP|FlagSet.StringVarP"},
	{pflag, "normalize flag names, for example treat underscores as dashes", "FlagSet.SetNormalizeFunc"},
	{pflag, "ignore unknown flags while parsing", "ParseErrorsWhitelist|stripUnknownFlagValue"},
	{pflag, "print the default values of all flags", "FlagSet.PrintDefaults|PrintDefaults"},
	{pflag, "sort flags alphabetically", "sortFlags"},
	{pflag, "create a new empty flag set", "NewFlagSet"},
	{toml, "decode toml from an io.Reader", "NewDecoder|Decoder.Decode|DecodeReader"},
	{toml, "check whether a key is present in the decoded toml", "MetaData.IsDefined"},
	{toml, "list every key in the document", "MetaData.Keys"},
	{toml, "error message with the line and column of a syntax error", "ParseError.ErrorWithPosition|ParseError.ErrorWithUsage"},
	{toml, "lex a number or a date", "lexNumberOrDate|lexNumberOrDateStart"},
	{toml, "decode a value later once its type is known", "MetaData.PrimitiveDecode|Primitive|PrimitiveDecode"},
	{toml, "lex a multi-line string", "lexMultilineString|lexMultilineRawString"},
	{toml, "toml type name of a go value", "tomlTypeOfGo"},
	{toml, "read toml from a file in an fs.FS", "DecodeFS"},
	{toml, "lex a comment", "lexComment|lexCommentStart"},
	{mux, "add middleware to a router", "Router.Use|Router.useInterface"},
	{mux, "build the url of a named route", "Route.URL|Route.URLPath"},
	{mux, "get a route by its name", "Router.Get|Router.GetRoute"},
	{mux, "the route that matched the current request", "CurrentRoute"},
	{mux, "set the Access-Control-Allow-Methods header for CORS", "CORSMethodMiddleware"},
	{mux, "redirect paths with a trailing slash", "Router.StrictSlash"},
	{mux, "match requests with a path prefix", "Route.PathPrefix|Router.PathPrefix"},
	{mux, "route that matches only some url schemes like https", "Route.Schemes|Router.Schemes"},
	{mux, "create a subrouter for a route", "Route.Subrouter"},
	{mux, "host of the request, taking the URL or the Host header", "getHost"},
	{retry, "where are failed requests retried", "Client.Do"},
	{retry, "how long to wait before the next retry attempt, growing exponentially", "DefaultBackoff"},
	{retry, "parse the Retry-After header of a response", "parseRetryAfterHeader"},
	{retry, "decide whether a response or error should be retried", "DefaultRetryPolicy|baseRetryPolicy|ErrorPropagatedRetryPolicy"},
	{retry, "hide the password of a url before logging it", "redactURL"},
	{retry, "read and discard the response body so the connection can be reused", "Client.drainBody"},
	{retry, "use the retrying client as a standard http.Client", "Client.StandardClient"},
	{retry, "wait time between attempts with random jitter", "LinearJitterBackoff"},
	{retry, "is the error a TLS certificate verification failure", "isCertError"},
	{chiMW, "recover from a panic in a handler and respond with 500", "Recoverer"},
	{chiMW, "client ip address from the X-Forwarded-For or X-Real-IP header", "RealIP|realIP"},
	{chiMW, "limit how many requests are processed at the same time", "Throttle|ThrottleWithOpts|ThrottleBacklog"},
	{chiMW, "cancel the request context after a deadline", "Timeout"},
	{chiMW, "remove the trailing slash from the request path", "StripSlashes"},
	{chiMW, "redirect to the url without its trailing slash", "RedirectSlashes"},
	{chiMW, "give each request a unique id", "RequestID|NextRequestID"},
	{chiMW, "limit the size of a request body", "RequestSize"},
	{chiMW, "gzip compress the responses", "Compress|NewCompressor|encoderGzip"},
	{chiMW, "http basic authentication with usernames and passwords", "BasicAuth"},
	{chiMW, "print a panic's stack trace in color", "PrintPrettyStack|prettyStack.parse"},
	{chi, "value of a url parameter of the request", "URLParam|Context.URLParam|URLParamFromCtx"},
	{chi, "attach a sub router under a path prefix", "Mux.Mount"},
	{chi, "find the route matching a path in the routing tree", "node.findRoute|node.FindRoute"},
	{chi, "visit every registered route and its middlewares", "Walk|walk"},
	{chi, "support a custom http method", "RegisterMethod"},
	{logrus, "find the function that called the logger", "getCaller"},
	{logrus, "run the registered handlers and then terminate the program", "Exit|runHandlers|Logger.Exit"},
	{logrus, "register a function to run when the program exits on a fatal log", "RegisterExitHandler|DeferExitHandler"},
	{logrus, "parse a level name such as info or debug", "ParseLevel"},
	{logrus, "format a log entry as json", "JSONFormatter.Format"},
	{logrus, "decide whether a value must be quoted in text output", "TextFormatter.needsQuoting"},
	{logrus, "is the output writer a terminal", "checkIfTerminal|isTerminal"},
	{logrus, "call every hook registered for a level", "LevelHooks.Fire|Entry.fireHooks"},
	{logrus, "send lines written to an io.Writer to the log", "Logger.Writer|Logger.WriterLevel|Entry.Writer|Entry.WriterLevel|Entry.writerScanner"},
	{logrus, "add several key value fields to a log entry", "Entry.WithFields|Logger.WithFields|WithFields"},
	{logrus, "print the level in color in the terminal", "TextFormatter.printColored"},
	{logrus, "set the minimum level that gets logged", "Logger.SetLevel|SetLevel"},
	{cli, "read a flag's value from an environment variable or a file", "flagFromEnvOrFile"},
	{cli, "suggest a command for a mistyped name", "suggestCommand"},
	{cli, "check that required flags were given", "Context.checkRequiredFlags"},
	{cli, "wrap long help text at a column", "wrap|wrapLine"},
	{cli, "generate the fish shell completion script", "App.ToFishCompletion|App.writeFishCompletionTemplate"},
	{cli, "find a subcommand by its name", "Command.Command|App.Command"},
	{cli, "exit the program with the code an error carries", "HandleExitCoder"},
	{cli, "split a flag value on commas into several values", "separatorSpec.flagSplitMultiValues"},
	{cli, "was this flag set on the command line", "Context.IsSet"},
	{cli, "print the version of the app", "ShowVersion|printVersion"},
	{cli, "the chain of parent contexts", "Context.Lineage"},
	{gin, "run the next handler in the middleware chain", "Context.Next"},
	{gin, "stop the remaining handlers from running", "Context.Abort|Context.AbortWithStatus"},
	{gin, "client ip address considering trusted proxies", "Context.ClientIP"},
	{gin, "save an uploaded file to disk", "Context.SaveUploadedFile"},
	{gin, "query string parameter with a fallback default", "Context.DefaultQuery"},
	{gin, "redirect a request to the path with or without a trailing slash", "redirectTrailingSlash"},
	{gin, "find the handlers for a request path in the routing tree", "node.getValue"},
	{gin, "recover from a panic and respond with 500", "CustomRecoveryWithWriter|Recovery|RecoveryWithWriter|CustomRecovery"},
	{gin, "choose the response format from the Accept header", "Context.NegotiateFormat|Context.Negotiate"},
	{gin, "stream server sent events", "Context.SSEvent|Context.Stream"},
	{gin, "check basic auth credentials", "authPairs.searchCredential|BasicAuthForRealm"},
	{gin, "listen on a unix socket", "Engine.RunUnix"},
	{gin, "dispatch an incoming http request to its route handlers", "Engine.handleHTTPRequest|Engine.ServeHTTP"},
	{gin, "color for the http status code in the request log", "LogFormatterParams.StatusCodeColor"},
	{gin, "set a cookie on the response", "Context.SetCookie"},
	{fsnotif, "read events from the kernel and send them on the channel", "inotify.readEvents"},
	{fsnotif, "check whether a path ends in /... to watch it recursively", "recursivePath"},
	{fsnotif, "stop watching a path", "Watcher.Remove|inotify.Remove|inotify.remove"},
	{fsnotif, "list the paths being watched", "Watcher.WatchList|inotify.WatchList"},
	{fsnotif, "watcher with a larger event buffer", "NewBufferedWatcher"},
	{fsnotif, "names of the operations in an event mask like CREATE|WRITE", "Op.String"},
	{fsnotif, "convert an inotify mask into an event", "inotify.newEvent"},
}

// writtenQuestion is a written question: the package of its answers,
// the question, and the answers' qualified names separated by "|" (a
// PKG#QN in another package).
type writtenQuestion struct {
	pkg, question, answers string
}

// writtenFor returns the written questions about m: those of its
// packages, or of its repository for a pinned corpus.
func writtenFor(m module) []question {
	ws := written
	if m.Pinned != nil {
		ws = writtenPinned[m.Pinned.Repo]
	}
	modPath, _, _ := strings.Cut(m.Module, "@")
	var out []question
	for _, w := range ws {
		if m.Pinned == nil && w.pkg != modPath && !strings.HasPrefix(w.pkg, modPath+"/") {
			continue
		}
		answers := strings.Split(w.answers, "|")
		out = append(out, question{Kind: "written", Question: w.question, Package: w.pkg, Answer: answers[0], Also: answers[1:]})
	}
	return out
}
